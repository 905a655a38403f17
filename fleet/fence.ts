/**
 * The fence: one update per stack, ever, across every worker and machine of a fleet.
 *
 * Pulumi's lock on a self-managed backend is a row with no lease: a worker that dies leaves it
 * behind, and only breaking it (`cancel`) lets the stack move again. Breaking it is safe only
 * when its holder is surely dead. So each run holds a PostgreSQL session advisory lock keyed by
 * the stack, on a connection of its own, for its whole run: PostgreSQL drops it when that
 * connection closes (the process killed, the machine gone), and never before. Whoever takes the
 * fence next knows the last holder is gone; a run row left open (`ended_at` null) says it died in
 * the middle, and only then are Pulumi's stale lock broken and its pending creates imported.
 *
 * The same database holds the Pulumi state (postgres:// backend) and graphile-worker's jobs.
 */
import { hostname } from "node:os";
import { UserError } from "pulumi-mgmt/internal/userError";
import { ensureFleetSchema, fleetClient, FLEET_SCHEMA } from "./fleetDatabase";
import { isDead } from "./liveness";
import { untilDone } from "./waits";

export interface RunRecord {
  result: string;
  error?: string;
  changes?: unknown;
  drift?: unknown;
}

/** A held fence: the run it guards is recorded under it, and `lost` fires if its connection drops. */
export interface Fence {
  /** This run's id in the run records. */
  readonly runId: string;
  /**
   * Whether the last run of this stack did not finish cleanly, so that Pulumi's lock and pending
   * operations of it may be left: its worker died (its row was still open), it was cancelled, or
   * its fence's connection dropped during it. The last two are a database restart or cut: the
   * engine's own end (deleting its lock) can miss the state backend, and Pulumi reports a lock it
   * failed to delete as an error message only, after an update that succeeded.
   */
  readonly unfinished: boolean;
  /** The ids of those unfinished runs: their Pulumi processes may still be running (leftovers.ts). */
  readonly leftBehind: string[];
  /**
   * Whether the run records say the stack exists in the state backend: the last run of it that
   * succeeded found or made it (a converge or a drift check), and no destroy of it succeeded since.
   * A hint that saves the run a CLI command to select its stack on a machine or folder that has not
   * run it; a stack removed outside the fleet is still found missing by the run, which then
   * creates it (converge.ts).
   */
  readonly stackExists: boolean;
  /** Where those runs ran and the pids of their CLIs: a Pulumi lock naming one of them is theirs (stackLock.ts). */
  readonly leftBehindCli: { host: string | null; pids: number[] }[];
  /** Records the pids of this run's CLIs (as each starts, before it can take Pulumi's lock). */
  recordCli(pids: number[]): Promise<void>;
  /** What `mgmt-fleet status` shows beside the running run (a wait), or nothing. */
  note(text: string | undefined): Promise<void>;
  /** Aborted when the fence's connection fails: the run must stop, for another may now start. */
  readonly lost: AbortSignal;
  /**
   * Records the end of this run, and releases the fence. When the database cannot be reached, it
   * tries again until `abandon` fires (never, without it): a run left open reads, once this
   * process is gone, as a dead run, which the next run of the stack recovers.
   */
  end(record: RunRecord, abandon?: AbortSignal): Promise<void>;
}

/** The results of a run that found or made its stack (converge.ts): after one, the stack exists until a destroy. */
const STACK_FOUND_OR_MADE = ["created", "updated", "unchanged", "drifted"];

/** A live run holds the stack: the job waits and tries again. */
export class FenceBusyError extends UserError {
  override readonly name = "FenceBusyError";
}

/**
 * Takes the fence of `stack` (project/stack) for a run of `action` by `worker`, or throws
 * FenceBusyError at once when a live run holds it. Open rows of dead runs are closed as
 * "interrupted".
 */
export async function takeFence(
  connectionString: string,
  stack: string,
  run: { action: string; worker: string; jobId?: string; attempt?: number },
): Promise<Fence> {
  await ensureFleetSchema(connectionString);
  const client = fleetClient(connectionString, { keepAlive: true });
  const lost = new AbortController();
  const dropped = () =>
    lost.abort(new UserError("the connection to the fleet database was lost, so another worker may take the stack"));
  client.on("error", dropped);
  client.on("end", dropped);
  await client.connect();
  const release = async () => {
    lost.abort();
    await client.end().catch(() => undefined);
  };
  try {
    const { rows } = await client.query<{ held: boolean }>(
      "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS held",
      [`pulumi-mgmt-fleet:stack:${stack}`],
    );
    if (!rows[0].held) throw new FenceBusyError(`stack ${stack} is being updated by another fleet worker or driver`);
    // A run left open whose worker still lives lost only its fence connection (a network cut, a
    // database restart) and is stopping its update now: its Pulumi lock is not stale yet.
    const { rows: openRuns } = await client.query<{ worker: string }>(
      `SELECT DISTINCT worker FROM ${FLEET_SCHEMA}.runs WHERE stack = $1 AND ended_at IS NULL`,
      [stack],
    );
    for (const { worker } of openRuns) {
      if (!(await isDead(client, worker)))
        throw new FenceBusyError(`the last run of stack ${stack} (worker ${worker}) is still stopping`);
    }
    const open = await client.query<{ id: string }>(
      `UPDATE ${FLEET_SCHEMA}.runs SET ended_at = clock_timestamp(), result = 'interrupted', error = 'the worker died during the run' WHERE stack = $1 AND ended_at IS NULL RETURNING id`,
      [stack],
    );
    const { rows: last } = await client.query<{ id: string; result: string; fence_lost: boolean }>(
      `SELECT id, result, fence_lost FROM ${FLEET_SCHEMA}.runs WHERE stack = $1 ORDER BY id DESC LIMIT 1`,
      [stack],
    );
    const leftBehind = open.rows.map((r) => r.id);
    if (last[0] && (last[0].result === "cancelled" || last[0].fence_lost) && !leftBehind.includes(last[0].id))
      leftBehind.push(last[0].id);
    const { rows: lastSuccess } = await client.query<{ result: string }>(
      `SELECT result FROM ${FLEET_SCHEMA}.runs WHERE stack = $1 AND result = ANY($2::text[]) ORDER BY id DESC LIMIT 1`,
      [stack, [...STACK_FOUND_OR_MADE, "destroyed"]],
    );
    const { rows: cli } = await client.query<{ host: string | null; cli_pids: number[] }>(
      `SELECT host, cli_pids FROM ${FLEET_SCHEMA}.runs WHERE id = ANY($1::bigint[])`,
      [leftBehind],
    );
    const { rows: mine } = await client.query<{ id: string }>(
      `INSERT INTO ${FLEET_SCHEMA}.runs (stack, action, job_id, attempt, worker, host) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [stack, run.action, run.jobId ?? null, run.attempt ?? 1, run.worker, hostname()],
    );
    const id = mine[0].id;
    return {
      runId: id,
      unfinished: leftBehind.length > 0,
      leftBehind,
      stackExists: lastSuccess.length > 0 && STACK_FOUND_OR_MADE.includes(lastSuccess[0].result),
      leftBehindCli: cli.map((r) => ({ host: r.host, pids: r.cli_pids })),
      lost: lost.signal,
      async recordCli(pids) {
        await client.query(`UPDATE ${FLEET_SCHEMA}.runs SET cli_pids = cli_pids || $2::int[] WHERE id = $1`, [
          id,
          pids,
        ]);
      },
      async note(text) {
        await client.query(`UPDATE ${FLEET_SCHEMA}.runs SET note = $2 WHERE id = $1`, [id, text ?? null]);
      },
      async end(record, abandon) {
        const text = `UPDATE ${FLEET_SCHEMA}.runs SET ended_at = clock_timestamp(), result = $2, error = $3, changes = $4, drift = $5, fence_lost = $6 WHERE id = $1`;
        const values = [
          id,
          record.result,
          record.error ?? null,
          record.changes === undefined ? null : JSON.stringify(record.changes),
          record.drift === undefined ? null : JSON.stringify(record.drift),
          lost.signal.aborted,
        ];
        try {
          if (!lost.signal.aborted) return void (await client.query(text, values));
        } catch {
          // the fence's connection failed: the run is over all the same, so say so on another
        } finally {
          await release();
        }
        // Left open, the row would read as a run still stopping for as long as this worker lives,
        // and nobody could take the stack: so until the database answers again.
        await untilDone(async () => {
          const other = fleetClient(connectionString);
          await other.connect();
          try {
            await other.query(text, values);
          } finally {
            await other.end().catch(() => undefined);
          }
        }, abandon);
      },
    };
  } catch (err) {
    await release();
    throw err;
  }
}
