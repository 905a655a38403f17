/**
 * The single-machine driver (examples/tenants) as one more member of the fleet when the stacks'
 * state is in PostgreSQL: each tenant's run holds the stack's fence, so two drivers, or a driver
 * and fleet workers, never update one stack at once (Pulumi's own lock has no lease and can be
 * broken), and a run that a killed driver left open is recovered by the next run by itself.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { reason, type TenantResult } from "./converge";
import { ensureFleetSchema, FenceBusyError } from "./fence";
import { convergeFenced, type FencedRunOptions } from "./fencedRun";
import { Liveness } from "./liveness";
import type { Tenant } from "./tenant";

export interface FencedDriver {
  /** This driver's id in the run records. */
  readonly worker: string;
  /** One tenant's run under its fence; a fence held by a live run is a failure, never waited for or broken. */
  converge(t: Tenant, o: Omit<FencedRunOptions, "database" | "worker">, progress?: (line: string) => void): Promise<TenantResult>;
  /** Lets go of this driver's liveness lock (its runs must be over). */
  close(): Promise<void>;
}

export async function startFencedDriver(database: string): Promise<FencedDriver> {
  await ensureFleetSchema(database);
  const worker = `driver-${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const liveness = new Liveness(database, () => undefined);
  await liveness.start();
  await liveness.add(worker);
  return {
    worker,
    async converge(t, o, progress) {
      const started = Date.now();
      try {
        return await convergeFenced(t, { ...o, database, worker }, { progress, lost: (why) => progress?.(`${why}: cancelling the update`) });
      } catch (err) {
        const busy = err instanceof FenceBusyError;
        const error = busy ? `another update of this stack is in progress (${err.message}): wait for it to finish` : `the fleet database: ${reason(err)}`;
        return { tenant: t.id, status: "failed", seconds: (Date.now() - started) / 1000, attempts: 1, error, transient: !busy };
      }
    },
    close: () => liveness.stop(),
  };
}
