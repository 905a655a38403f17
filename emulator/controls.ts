/**
 * What tests and benchmarks do to the emulator besides calling the API: inject faults, add
 * latency, rate-limit, and read the request log and counters.
 */
import { z } from "zod";

export const FaultRule = z.object({
  /** HTTP method to match; any when absent. */
  method: z.string().toUpperCase().optional(),
  /** Regular expression matched against the request path (without query); any when absent. */
  path: z.string().optional(),
  /** Answer this status with `{"error": "injected fault"}` instead of processing the request. */
  status: z.number().int().min(100).max(599).optional(),
  /**
   * With `status`: the error text repeats the request's Authorization header and, for Basic, the
   * decoded user and password, as a careless service or proxy might (the client must redact it).
   */
  echoAuthorization: z.boolean().optional(),
  /** Seconds for a `Retry-After` header on the injected answer. */
  retryAfter: z.number().int().min(0).optional(),
  /** Wait this long before doing anything else (use beyond the client timeout for a timeout). */
  delayMs: z.number().int().min(0).optional(),
  /** Close the connection without answering, before processing. */
  drop: z.boolean().optional(),
  /** Process the request (commit its effect), then close the connection without answering. */
  commitThenDrop: z.boolean().optional(),
  /** Process the request (commit its effect), then answer this status instead of the result. */
  commitThenStatus: z.number().int().min(400).max(599).optional(),
  /** Process the request (commit its effect), send the headers and one byte of the body, then stall this long and close. */
  stallBodyMs: z.number().int().min(0).optional(),
  /** Process the request (commit its effect), then wait this long before answering. */
  delayAfterMs: z.number().int().min(0).optional(),
  /**
   * Hold the request, unprocessed, until the test opens the gate (`Controls.openGate`): lets a
   * test act at a known point (for example, cancel while N creates are in flight).
   */
  hold: z.boolean().optional(),
  /** How many matching requests this rule applies to. */
  times: z.number().int().min(1).default(1),
});
export type FaultRule = z.infer<typeof FaultRule>;
export type FaultRuleInput = z.input<typeof FaultRule>;

export interface LoggedRequest {
  /** Arrival order (an answer given late, or never, is logged late but keeps its place). */
  seq: number;
  method: string;
  /** The path as requested, without query. */
  path: string;
  /** The query string, without `?`, when there was one. */
  query?: string;
  /** The matched route, e.g. `GET /v2/search/:id`, for counting by operation. */
  route: string;
  /** "dropped": we closed the connection; "abandoned": the client closed it before the answer; "stalled": the body never finished. */
  status: number | "dropped" | "abandoned" | "stalled";
  fault?: string;
  at: number;
}

export class Controls {
  private faults: (FaultRule & { left: number })[] = [];
  latencyMs = 0;
  /** What a flow control read answers: every field (default) or only the spec's two. */
  flowControlReport: "full" | "documented" = "full";
  private ratePerSecond = 0;
  private window = { start: 0, count: 0 };
  log: LoggedRequest[] = [];
  connections = 0;
  private seq = 0;
  private gate: { open: boolean; held: (() => void)[]; waiters: { count: number; resolve: () => void }[] } = {
    open: false,
    held: [],
    waiters: [],
  };

  /** Waits at the gate unless it is open (a `hold` fault). */
  hold(): Promise<void> {
    if (this.gate.open) return Promise.resolve();
    return new Promise((resolve) => {
      this.gate.held.push(resolve);
      for (const w of this.gate.waiters.filter((w) => this.gate.held.length >= w.count)) w.resolve();
      this.gate.waiters = this.gate.waiters.filter((w) => this.gate.held.length < w.count);
    });
  }

  /** Resolves once `count` requests wait at the gate. */
  heldRequests(count: number): Promise<void> {
    if (this.gate.held.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.gate.waiters.push({ count, resolve }));
  }

  /** Lets every held request through, and every later `hold` pass at once. */
  openGate(): void {
    this.gate.open = true;
    for (const release of this.gate.held.splice(0)) release();
  }

  /** Holds later `hold` requests at the gate again (after `openGate`). */
  closeGate(): void {
    this.gate.open = false;
  }

  addFault(rule: FaultRule): void {
    this.faults.push({ ...rule, left: rule.times });
  }

  clearFaults(): void {
    this.faults = [];
  }

  setRateLimit(perSecond: number): void {
    this.ratePerSecond = perSecond;
    this.window = { start: 0, count: 0 };
  }

  /** The first fault rule that matches, consuming one of its uses. */
  takeFault(method: string, path: string): FaultRule | undefined {
    const rule = this.faults.find(
      (f) => f.left > 0 && (!f.method || f.method === method) && (!f.path || new RegExp(f.path).test(path)),
    );
    if (!rule) return undefined;
    rule.left -= 1;
    this.faults = this.faults.filter((f) => f.left > 0);
    return rule;
  }

  /** Fixed one-second windows: over the limit answers 429 with `Retry-After: 1`. */
  overRateLimit(): boolean {
    if (this.ratePerSecond <= 0) return false;
    const now = Date.now();
    if (now - this.window.start >= 1000) this.window = { start: now, count: 0 };
    this.window.count += 1;
    return this.window.count > this.ratePerSecond;
  }

  /** A number for a request as it arrives; the request is unlogged until its entry is recorded. */
  arrival(): number {
    this.unlogged.add(++this.seq);
    return this.seq;
  }

  /** Requests that arrived and have no entry yet (held, or an answer still delayed), by number. */
  private unlogged = new Set<number>();
  private whenLogged: { upTo: number; resolve: () => void }[] = [];

  /** How many of the requests that arrived up to number `upTo` have no entry yet (resetLog empties the set). */
  private unloggedUpTo(upTo: number): number {
    let n = 0;
    for (const seq of this.unlogged) if (seq <= upTo) n++;
    return n;
  }

  /**
   * Resolves once every request of the log's scope (arrived since the last resetLog) that had
   * arrived by this call has its entry: an answer delayed past its client's timeout is logged
   * "abandoned" only when the delay ends. Requests arriving meanwhile are not waited for. Fails
   * after `timeoutMs`, saying how many are still out.
   */
  allLogged(timeoutMs: number): Promise<void> {
    const waiter = { upTo: this.seq, resolve: () => {} };
    if (this.unloggedUpTo(waiter.upTo) === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.whenLogged = this.whenLogged.filter((w) => w !== waiter);
        const left = this.unloggedUpTo(waiter.upTo);
        reject(new Error(`the emulator: ${left} requests still unanswered after ${timeoutMs} ms`));
      }, timeoutMs);
      waiter.resolve = () => {
        clearTimeout(timer);
        resolve();
      };
      this.whenLogged.push(waiter);
    });
  }

  /** Resolves the waits whose requests all have their entries. */
  private wake(): void {
    const done = this.whenLogged.filter((w) => this.unloggedUpTo(w.upTo) === 0);
    if (done.length === 0) return;
    this.whenLogged = this.whenLogged.filter((w) => !done.includes(w));
    for (const w of done) w.resolve();
  }

  record(entry: Omit<LoggedRequest, "seq" | "at"> & { seq?: number }): void {
    if (entry.seq !== undefined && this.unlogged.delete(entry.seq)) this.wake();
    // A request that arrived before the last reset is not in the new log, however late it ends
    // (an answer delayed past the client's death is logged "abandoned" seconds later).
    if (entry.seq !== undefined && entry.seq <= this.loggedFrom) return;
    this.log.push({ ...entry, seq: entry.seq ?? ++this.seq, at: Date.now() });
    const n = this.log.length;
    if (n > 1 && this.log[n - 1].seq < this.log[n - 2].seq) this.log.sort((a, b) => a.seq - b.seq);
  }

  counters(): {
    total: number;
    byRoute: Record<string, number>;
    byStatus: Record<string, number>;
    connections: number;
  } {
    const byRoute: Record<string, number> = {};
    const byStatus: Record<string, number> = {};
    for (const e of this.log) {
      byRoute[e.route] = (byRoute[e.route] ?? 0) + 1;
      byStatus[String(e.status)] = (byStatus[String(e.status)] ?? 0) + 1;
    }
    return { total: this.log.length, byRoute, byStatus, connections: this.connections };
  }

  /** The log holds the requests that arrived after this arrival number. */
  private loggedFrom = 0;

  /** Empties the log: from now on it holds the requests that arrive after this call. */
  resetLog(): void {
    this.log = [];
    this.loggedFrom = this.seq;
    // Their entries can no longer reach the log: a request never logged (a pipelined request
    // whose client hung up before its turn gets no hook) is not kept, nor waited for, past this.
    this.unlogged.clear();
    this.wake();
    this.connections = 0;
  }

  reset(): void {
    this.openGate();
    this.gate = { open: false, held: [], waiters: [] };
    this.resetLog();
    this.clearFaults();
    this.latencyMs = 0;
    this.flowControlReport = "full";
    this.setRateLimit(0);
  }
}
