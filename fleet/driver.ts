/**
 * The single-machine driver (examples/tenants) as one more member of the fleet when the stacks'
 * state is in PostgreSQL: each tenant's run holds the stack's fence, so two drivers, or a driver
 * and fleet workers, never update one stack at once (Pulumi's own lock has no lease and can be
 * broken), and a run that a killed driver left open is recovered by the next run by itself.
 *
 * A driver is a command a person waits for, not a service: when the database goes away it says
 * so at once, waits for it a bounded time (`dbWaitMs`), then stops for good (its runs are left for
 * the next run to recover), where a fleet worker waits for as long as it takes.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { boundPulumiCommand } from "pulumi-mgmt/internal/automation/boundCli";
import { checkCliHasBackend } from "pulumi-mgmt/internal/automation/stack";
import { runFailureReason, type TenantResult } from "./converge";
import { FenceBusyError } from "./fence";
import { ensureFleetSchema } from "./fleetDatabase";
import { abortableSleep } from "./waits";
import { convergeFenced, type FencedRunOptions } from "./fencedRun";
import { Liveness, seconds } from "./liveness";
import type { Shutdown } from "./shutdown";
import type { Tenant } from "./tenant";

export interface FencedDriver {
  /** This driver's id in the run records. */
  readonly worker: string;
  /** One tenant's run under its fence; a fence held by a live run is a failure, never waited for or broken. */
  converge(
    t: Tenant,
    o: Omit<FencedRunOptions, "database" | "worker" | "abandon">,
    progress?: (line: string) => void,
  ): Promise<TenantResult>;
  /** Lets go of this driver's liveness lock (its runs must be over). */
  close(): Promise<void>;
}

export interface FencedDriverOptions {
  /** How long the database may stay unreachable before the driver stops for good. Default 180 s. */
  dbWaitMs?: number;
  /** The driver's stop (shutdown.ts): stopped for good when the database stays away too long. */
  shutdown: Shutdown;
  /** Lines for the operator (the database's outages). */
  log: (line: string) => void;
}

/** Socket and server codes of a database that cannot be reached for now (a run waits for it, within the driver's bound). */
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|the database system is (starting up|shutting down)|Connection terminated|terminating connection/;

export async function startFencedDriver(database: string, o: FencedDriverOptions): Promise<FencedDriver> {
  // The stacks' state is in this database: a CLI without that backend fails here, not per tenant.
  checkCliHasBackend(database, await boundPulumiCommand());
  await ensureFleetSchema(database);
  const worker = `driver-${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const liveness = new Liveness(database, o.log, { name: "the state database" });
  await liveness.start();
  await liveness.add(worker);
  const dbWaitMs = o.dbWaitMs ?? 180_000;
  let outage: number | undefined;
  const watch = setInterval(() => {
    const since = liveness.downSince;
    if (since !== undefined && outage !== since) {
      outage = since;
      o.log(`waiting up to ${seconds(dbWaitMs)} for it (--db-wait), then stopping; Ctrl-C stops now`);
    }
    if (since !== undefined && Date.now() - since >= dbWaitMs)
      o.shutdown.now(`the state database was unreachable for ${seconds(Date.now() - since)} (--db-wait)`);
  }, 500);
  watch.unref();
  return {
    worker,
    async converge(t, run, progress) {
      const started = Date.now();
      const failed = (error: string, transient: boolean): TenantResult => ({
        tenant: t.id,
        status: "failed",
        seconds: (Date.now() - started) / 1000,
        attempts: 1,
        error,
        transient,
      });
      for (;;) {
        if (run.signal.aborted)
          return {
            tenant: t.id,
            status: "cancelled",
            seconds: (Date.now() - started) / 1000,
            attempts: 0,
            error: `not started: ${o.shutdown.abandon.aborted ? (o.shutdown.abandon.reason as Error).message : "the driver was stopped"}`,
            transient: true,
          };
        try {
          return await convergeFenced(
            t,
            { ...run, database, worker, abandon: o.shutdown.abandon },
            {
              progress,
              notice: (line) => o.log(`${t.id}: ${line}`),
              lost: (why) => progress?.(`${why}: cancelling the update`),
            },
          );
        } catch (err) {
          if (err instanceof FenceBusyError)
            return failed(`another update of this stack is in progress (${err.message}): wait for it to finish`, false);
          // The database is away before the run could begin: wait for it (within --db-wait), then begin.
          if (!UNREACHABLE.test(runFailureReason(err)))
            return failed(`the state database: ${runFailureReason(err)}`, true);
          await abortableSleep(1000, run.signal);
          await liveness.held(worker, run.signal);
        }
      }
    },
    async close() {
      clearInterval(watch);
      await liveness.stop();
    },
  };
}
