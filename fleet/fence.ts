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
import { Client, type ClientConfig } from "pg";
import { UserError } from "pulumi-mgmt/internal/userError";

export const FLEET_SCHEMA = "pulumi_mgmt_fleet";

/**
 * A client of the fleet's database. A server that drops a connection (a restart) makes its client
 * emit "error" even while idle, which unheard would crash the whole worker: its queries reject
 * instead, and that is what the callers handle.
 */
export function fleetClient(
  connectionString: string,
  options: Pick<ClientConfig, "keepAlive" | "connectionTimeoutMillis" | "query_timeout"> = {},
): Client {
  const client = new Client({ connectionString, ...options });
  client.on("error", () => undefined);
  return client;
}

const ensured = new Map<string, Promise<void>>();

/** The fleet's own tables, made once per database and process; concurrent first runs queue on a transaction lock. */
export function ensureFleetSchema(connectionString: string): Promise<void> {
  let made = ensured.get(connectionString);
  if (!made) {
    made = createFleetSchema(connectionString);
    made.catch(() => ensured.delete(connectionString));
    ensured.set(connectionString, made);
  }
  return made;
}

async function createFleetSchema(connectionString: string): Promise<void> {
  const client = fleetClient(connectionString);
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('pulumi-mgmt-fleet:schema', 0))");
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${FLEET_SCHEMA}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${FLEET_SCHEMA}.runs (
      id bigserial PRIMARY KEY,
      stack text NOT NULL,
      action text NOT NULL,
      job_id text,
      attempt int NOT NULL DEFAULT 1,
      worker text NOT NULL,
      started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      ended_at timestamptz,
      result text,
      error text,
      changes jsonb,
      drift jsonb,
      fence_lost boolean NOT NULL DEFAULT false
    )`);
    await client.query(`CREATE INDEX IF NOT EXISTS runs_stack ON ${FLEET_SCHEMA}.runs (stack, id)`);
    // Who a run's Pulumi lock would name (stackLock.ts): its host, and the pids of its CLIs as
    // each starts (automation/boundCli.ts). And what a status shows while the run waits.
    await client.query(
      `ALTER TABLE ${FLEET_SCHEMA}.runs ADD COLUMN IF NOT EXISTS host text, ADD COLUMN IF NOT EXISTS cli_pids int[] NOT NULL DEFAULT '{}', ADD COLUMN IF NOT EXISTS note text`,
    );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

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

/** The advisory lock a live worker holds on its process's own connection (liveness.ts). */
export const workerLockName = (worker: string) => `pulumi-mgmt-fleet:worker:${worker}`;

/** A live run holds the stack: the job waits and tries again. */
export class FenceBusyError extends UserError {
  override readonly name = "FenceBusyError";
}

/**
 * How long a worker's lock must stay free before its process is judged gone. A live worker loses
 * its lock whenever its connection drops (a database restart, crash or failover, a cut
 * connection) and takes it again within seconds of reaching the server: its reconnect waits at
 * most 5 s between attempts.
 */
export const CONFIRM_DEAD_MS = 12_000;

/** Whether a worker's process is gone: nobody holds its lock, seen twice CONFIRM_DEAD_MS apart. */
export async function isDead(client: Client, worker: string): Promise<boolean> {
  if (!(await lockFree(client, worker))) return false;
  await new Promise((r) => setTimeout(r, CONFIRM_DEAD_MS));
  return lockFree(client, worker);
}

/**
 * Whether nobody holds a worker's lock, read from pg_locks rather than by taking it: runs of one
 * process check the same dead worker side by side (every stack it left open), and a probe that
 * takes the lock, however briefly, reads to its neighbour as a live worker.
 */
async function lockFree(client: Client, worker: string): Promise<boolean> {
  const { rows } = await client.query<{ free: boolean }>(
    `SELECT NOT EXISTS (
       SELECT 1 FROM pg_locks, (SELECT hashtextextended($1, 0) AS k) AS key
       WHERE locktype = 'advisory' AND granted AND objsubid = 1
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND classid::bigint = ((k >> 32) & 4294967295) AND objid::bigint = (k & 4294967295)
     ) AS free`,
    [workerLockName(worker)],
  );
  return rows[0].free;
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

/** Attempts 1 s, 2 s, ... up to 10 s apart, until done or `abandon` fires: the database restarting or away. */
async function untilDone(op: () => Promise<void>, abandon?: AbortSignal): Promise<void> {
  for (let attempt = 1; !abandon?.aborted; attempt++) {
    try {
      return await op();
    } catch {
      await abortableSleep(Math.min(1000 * attempt, 10_000), abandon);
    }
  }
}

/** A wait that ends early when `signal` fires, and keeps no process alive. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => (clearTimeout(timer), signal?.removeEventListener("abort", done), resolve());
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
