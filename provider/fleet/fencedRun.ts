/**
 * One tenant's run under its stack's fence (fence.ts): what every fleet job runs, and the
 * single-machine driver on a postgres:// backend (driver.ts). When the last run of the stack did
 * not finish cleanly (its process died, or it was cancelled), its stale Pulumi lock is broken and
 * its pending creates are imported first, with no --recover by hand: under the fence, no other
 * run of the fleet can hold that lock.
 */
import { converge, type RunOptions, type TenantResult } from "./converge";
import { takeFence } from "./fence";
import { tenantStack, type Tenant } from "./tenant";

export interface FencedRunOptions extends Omit<RunOptions, "backendUrl" | "recover" | "fenced"> {
  /** The fleet's PostgreSQL: the fence, the run records and (postgres://) the stacks' state. */
  database: string;
  /** Whose run this is: a worker pool's or a driver's id, whose liveness lock this process holds. */
  worker: string;
  jobId?: string;
  attempt?: number;
  /** Break the stack's lock and import its pending creates even when no run is known to have died (the driver's --recover). */
  recover?: boolean;
}

/**
 * Takes the fence (FenceBusyError at once when a live run holds it), converges, records the
 * result under the fence and lets it go. `started` hears whether the last run was unfinished,
 * `lost` why the run is being stopped when its fence's connection drops.
 */
export async function convergeFenced(t: Tenant, o: FencedRunOptions, hooks: { progress?: (line: string) => void; started?: (unfinished: boolean) => void; lost?: (why: string) => void } = {}): Promise<TenantResult> {
  const { database, worker, jobId, attempt, recover, signal, ...run } = o;
  const fence = await takeFence(database, tenantStack(t.id), { action: o.action, worker, jobId, attempt });
  let result: TenantResult;
  let over = false; // once the run is over, letting the fence go is no loss
  fence.lost.addEventListener("abort", () => void (over || hooks.lost?.((fence.lost.reason as Error).message)), { once: true });
  try {
    hooks.started?.(fence.unfinished);
    // Losing the fence's connection stops the run: another process may take the stack now.
    result = await converge(t, { ...run, backendUrl: database, recover: fence.unfinished || !!recover, fenced: true, signal: AbortSignal.any([fence.lost, signal]) }, hooks.progress);
  } catch (err) {
    over = true;
    // Never a held fence without a run (a work folder that cannot be made, say): recorded, let go.
    await fence.end({ result: "failed", error: (err as Error).message });
    throw err;
  }
  over = true;
  await fence.end({ result: result.status, error: result.error, changes: result.changes, drift: result.drift });
  return result;
}
