/**
 * A process's proof of life to the rest of the fleet: an advisory lock per worker id (a worker
 * pool's, or a single-machine driver's), on one connection of its own. Whoever finds such a lock
 * free knows the process is gone (`isDead`), since PostgreSQL frees it only when the
 * connection closes.
 */
import type { Client } from "pg";
import { fleetClient } from "./fleetDatabase";
import { abortableSleep } from "./waits";
import { InternalError } from "pulumi-mgmt/internal/userError";

/** The advisory lock a live worker holds on its process's own connection. */
export const workerLockName = (worker: string) => `pulumi-mgmt-fleet:worker:${worker}`;

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

export interface LivenessOptions {
  /** What the operator calls this database in the lines about an outage. Default "the fleet database". */
  name?: string;
  /** How often an outage is reported again while it lasts. Default 30 s. */
  reportEveryMs?: number;
}

/**
 * If the connection fails while the process lives (a database restart), one reconnect loop opens
 * it again and takes every lock again; other workers give it time for that (`isDead`'s grace).
 * An outage is said at once, again every `reportEveryMs` while it lasts, and when it ends.
 */
export class Liveness {
  private client?: Client;
  private readonly ids = new Set<string>();
  private readonly taking = new Map<string, Promise<void>>();
  private reconnecting?: Promise<void>;
  private stopped = false;
  /** When the connection was lost, while it is (Date.now()). */
  downSince?: number;
  private readonly where: string;

  constructor(
    private readonly database: string,
    private readonly log: (line: string) => void,
    private readonly options: LivenessOptions = {},
  ) {
    const u = new URL(database);
    this.where = `${options.name ?? "the fleet database"} at ${u.hostname}:${u.port || 5432}`;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  start(): Promise<void> {
    return this.connect();
  }

  /** Takes the lock of `id` (again after every reconnect); settles once it is held. */
  add(id: string): Promise<void> {
    this.ids.add(id);
    const taken = this.lock(id);
    this.taking.set(id, taken);
    return taken;
  }

  /** Resolves once the lock of `id` is held (after a reconnect, once it is held again), or `signal` fires. */
  async held(id: string, signal?: AbortSignal): Promise<void> {
    if (!this.ids.has(id)) throw new InternalError(`worker ${id} is not one of this process's worker pools`);
    const aborted = new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }));
    await Promise.race([Promise.all([this.taking.get(id), this.reconnecting]), aborted]);
  }

  /** A connection holding every lock, or none: a half-made one is closed, not leaked. */
  private async connect(): Promise<void> {
    const client = fleetClient(this.database, { keepAlive: true });
    try {
      await client.connect();
      for (const id of this.ids) await client.query(LOCK, [workerLockName(id)]);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.stopped) return void (await client.end().catch(() => undefined)); // stopped meanwhile
    client.once("end", () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.reconnect();
    });
    this.client = client;
  }

  /** One loop at a time, however many ways the connection reports its end. */
  private reconnect(): void {
    if (this.stopped || this.reconnecting) return;
    this.downSince ??= Date.now();
    this.log(`${this.where} is unreachable (the connection was lost): retrying`);
    this.reconnecting = (async () => {
      let reported = Date.now();
      for (let attempt = 1; !this.stopped; attempt++) {
        try {
          await this.connect();
          if (!this.stopped) this.log(`reconnected to ${this.where} after ${seconds(Date.now() - this.downSince!)}`);
          return;
        } catch (err) {
          if (Date.now() - reported >= (this.options.reportEveryMs ?? 30_000)) {
            reported = Date.now();
            this.log(
              `${this.where} is still unreachable after ${seconds(Date.now() - this.downSince!)} (${(err as Error).message}): retrying`,
            );
          }
          await abortableSleep(Math.min(1000 * attempt, 5000), this.stopSignal.signal);
        }
      }
    })().finally(() => {
      this.reconnecting = undefined;
      if (this.client) this.downSince = undefined;
    });
  }

  private async lock(id: string): Promise<void> {
    const client = this.client;
    if (client) {
      try {
        return void (await client.query(LOCK, [workerLockName(id)]));
      } catch {
        // Closed, not dropped: were it still alive, it would keep its locks for a process that gave it up.
        if (this.client === client) {
          this.client = undefined;
          void client.end().catch(() => undefined);
        }
      }
    }
    // No connection: the reconnect takes every lock of `ids`, this one included.
    this.reconnect();
    await this.reconnecting;
  }

  private readonly stopSignal = new AbortController();

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopSignal.abort();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

const LOCK = "SELECT pg_advisory_lock(hashtextextended($1, 0))";

/** 7s, 2m05s. */
export const seconds = (ms: number) =>
  ms < 60_000
    ? `${Math.round(ms / 1000)}s`
    : `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, "0")}s`;
