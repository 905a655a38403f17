/**
 * A process's proof of life to the rest of the fleet: an advisory lock per worker id (a worker
 * pool's, or a single-machine driver's), on one connection of its own. Whoever finds such a lock
 * free knows the process is gone (fence.ts, `isDead`), since PostgreSQL frees it only when the
 * connection closes.
 */
import type { Client } from "pg";
import { fleetClient, workerLockName } from "./fence";

/**
 * If the connection fails while the process lives (a database restart), one reconnect loop opens
 * it again and takes every lock again; other workers give it time for that (`isDead`'s grace).
 */
export class Liveness {
  private client?: Client;
  private readonly ids = new Set<string>();
  private readonly taking = new Map<string, Promise<void>>();
  private reconnecting?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly database: string,
    private readonly log: (line: string) => void,
  ) {}

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
    if (!this.ids.has(id)) throw new Error(`worker ${id} is not one of this process's worker pools`);
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
    this.reconnecting = (async () => {
      for (let attempt = 1; !this.stopped; attempt++) {
        try {
          await this.connect();
          this.log("reconnected to the database");
          return;
        } catch {
          await new Promise((r) => setTimeout(r, Math.min(1000 * attempt, 5000)));
        }
      }
    })().finally(() => (this.reconnecting = undefined));
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

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

const LOCK = "SELECT pg_advisory_lock(hashtextextended($1, 0))";
