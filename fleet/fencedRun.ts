/**
 * One tenant's run under its stack's fence (fence.ts): what every fleet job runs, and the
 * single-machine driver on a postgres:// backend (driver.ts). When the last run of the stack did
 * not finish cleanly (its process died, or it was cancelled), whatever that run left running on
 * this machine is given a bounded time to finish and then ended (leftovers.ts), its Pulumi lock is
 * broken if it is provably that run's own (stackLock.ts; anyone else's is waited for, never
 * broken), and its pending creates are imported, with no --recover by hand. Every CLI of a run
 * dies with its process and records its pid (automation/boundCli.ts): docs/fleet.md.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { CLI_PIDS_ENV } from "pulumi-mgmt/internal/automation/boundCli";
import { recordCliPids } from "./cliPids";
import { converge, type RunOptions, type TenantResult } from "./converge";
import { takeFence } from "./fence";
import { endLeftovers, runEnv } from "./leftovers";
import { settleStackLock } from "./stackLock";
import { TENANT_PROJECT, tenantStack, type Tenant } from "./tenant";

export interface FencedRunOptions extends Omit<
  RunOptions,
  "backendUrl" | "recover" | "fenced" | "envVars" | "stackExists"
> {
  /** The fleet's PostgreSQL: the fence, the run records and (postgres://) the stacks' state. */
  database: string;
  /** Whose run this is: a worker pool's or a driver's id, whose liveness lock this process holds. */
  worker: string;
  jobId?: string;
  attempt?: number;
  /** Break the stack's lock and import its pending creates even when no run is known to have died (the driver's --recover). */
  recover?: boolean;
  /** How long the Pulumi CLIs a dead run left on this machine get to finish before they are ended. Default 60 s. */
  takeoverWaitMs?: number;
  /** How long a Pulumi lock that is not a dead run's (a person's `pulumi up`) is waited for before the run fails. Default 300 s. */
  lockWaitMs?: number;
  /** This process is ending for good: stop waiting for the database to record the run's end. */
  abandon?: AbortSignal;
}

/**
 * Takes the fence (FenceBusyError at once when a live run holds it), converges, records the
 * result under the fence and lets it go. `started` hears whether the last run was unfinished,
 * `lost` why the run is being stopped when its fence's connection drops, `notice` what a takeover
 * waits for.
 */
export async function convergeFenced(
  t: Tenant,
  o: FencedRunOptions,
  hooks: {
    progress?: (line: string) => void;
    started?: (unfinished: boolean) => void;
    lost?: (why: string) => void;
    notice?: (line: string) => void;
  } = {},
): Promise<TenantResult> {
  const { database, worker, jobId, attempt, recover, signal, takeoverWaitMs, lockWaitMs, abandon, ...run } = o;
  const fence = await takeFence(database, tenantStack(t.id), { action: o.action, worker, jobId, attempt });
  let result: TenantResult;
  let over = false; // once the run is over, letting the fence go is no loss
  fence.lost.addEventListener("abort", () => void (over || hooks.lost?.((fence.lost.reason as Error).message)), {
    once: true,
  });
  try {
    hooks.started?.(fence.unfinished);
    const stop = AbortSignal.any([fence.lost, signal]);
    const notice = hooks.notice ?? hooks.progress ?? (() => undefined);
    // A dead run's CLI may still be writing this stack: nothing of it may run beside this one.
    await endLeftovers(database, fence.leftBehind, { waitMs: takeoverWaitMs ?? 60_000, notice, signal: stop });
    // Pulumi's lock: broken only when it names a dead run's host and CLI, else waited for.
    const isDeadRunsOwn = (h: { hostname: string; pid: number }) =>
      fence.leftBehindCli.some((r) => r.host === h.hostname && r.pids.includes(h.pid));
    const started = Date.now();
    const refusal = await settleStackLock({
      backendUrl: database,
      project: TENANT_PROJECT,
      stack: t.id,
      isDeadRunsOwn,
      waitMs: lockWaitMs ?? 300_000,
      notice,
      note: (text) => fence.note(text),
      signal: stop,
    });
    if (refusal && !stop.aborted) {
      result = {
        tenant: t.id,
        status: "failed",
        seconds: (Date.now() - started) / 1000,
        attempts: 1,
        error: refusal,
        transient: false,
      };
    } else {
      // Each CLI's pid is recorded as it starts, so that a lock it leaves is provably this run's.
      const pidFile = path.join(run.workRoot, `.cli-pids-${t.id}`);
      mkdirSync(run.workRoot, { recursive: true });
      const pids = recordCliPids(pidFile, (found) => fence.recordCli(found));
      try {
        // Losing the fence's connection stops the run: another process may take the stack now.
        result = await converge(
          t,
          {
            ...run,
            backendUrl: database,
            recover: fence.unfinished || !!recover,
            stackExists: fence.stackExists,
            fenced: true,
            signal: stop,
            boundCli: true,
            envVars: { ...runEnv(database, fence.runId), [CLI_PIDS_ENV]: pidFile },
          },
          hooks.progress,
        );
      } finally {
        await pids.stop();
      }
    }
  } catch (err) {
    over = true;
    // Never a held fence without a run (a work folder that cannot be made, say): recorded, let go.
    await fence.end({ result: "failed", error: (err as Error).message }, abandon);
    throw err;
  }
  over = true;
  await fence.end(
    { result: result.status, error: result.error, changes: result.changes, drift: result.drift },
    abandon,
  );
  return result;
}
