/**
 * A job's outcome reaches the queue though PostgreSQL restarts as the job ends.
 *
 * graphile-worker records a job's completion (or its failure) once, with no retry on a lost
 * connection: rejected, and never awaited, that record is lost, and the job stays locked by a
 * worker that still lives, which nobody then frees. A restart ends every session (57P01), and
 * the runs it cuts end at that moment. So each job hands its outcome back only once the
 * database answers again through the worker's own pool (the `pgPool` graphile-worker records
 * with): the record then goes out on a connection made after the restart. A record lost all the
 * same (the server gone again within that moment) is found by `LostOutcomes`: a job this
 * process's pool locks and no task of this process runs, seen twice apart.
 */
import { Pool } from "pg";
import { abortableSleep } from "./waits";

/**
 * The pool a worker's graphile-worker runs on (its `pgPool` option). A connection the server drops
 * (a restart) makes the pool, or the client checked out of it, emit "error", which unheard would
 * end the process: heard here, as graphile-worker asks of a pool it is given, and said by the
 * fleet itself (liveness.ts); the query of a client checked out fails, and its caller handles that.
 */
export function queuePool(connectionString: string, max: number): Pool {
  const pool = new Pool({ connectionString, max });
  pool.on("error", () => undefined);
  pool.on("connect", (client) => void client.on("error", () => undefined));
  return pool;
}

/** Resolves once `pool` answers a query, trying 1 s, 2 s, ... up to 5 s apart; at once when `signal` fires. */
export async function untilDatabaseAnswers(pool: Pool, signal?: AbortSignal): Promise<void> {
  for (let attempt = 1; !signal?.aborted; attempt++) {
    try {
      return void (await pool.query("SELECT 1"));
    } catch {
      await abortableSleep(Math.min(1000 * attempt, 5000), signal);
    }
  }
}

/** How long a job of this process's must stay locked with no task running it before its outcome counts as lost. */
export const LOST_AFTER_MS = 10_000;

/**
 * The jobs whose outcome was lost: locked by one of this process's pools, run by none of its
 * tasks, at two looks at least LOST_AFTER_MS apart (a job between its task's end and its record
 * is seen once at most).
 */
export class LostOutcomes {
  private readonly suspects = new Map<string, number>();

  /** `locked`: the ids of the jobs this process's pools lock now; `running`: those its tasks run. Returns the lost ones. */
  look(locked: string[], running: Set<string>, now = Date.now()): string[] {
    const lost: string[] = [];
    for (const id of [...this.suspects.keys()]) if (!locked.includes(id) || running.has(id)) this.suspects.delete(id);
    for (const id of locked) {
      if (running.has(id)) continue;
      const since = this.suspects.get(id);
      if (since === undefined) this.suspects.set(id, now);
      else if (now - since >= LOST_AFTER_MS) lost.push(id);
    }
    return lost;
  }
}
