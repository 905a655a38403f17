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
  /** Seconds for a `Retry-After` header on the injected answer. */
  retryAfter: z.number().int().min(0).optional(),
  /** Wait this long before doing anything else (use beyond the client timeout for a timeout). */
  delayMs: z.number().int().min(0).optional(),
  /** Close the connection without answering, before processing. */
  drop: z.boolean().optional(),
  /** Process the request (commit its effect), then close the connection without answering. */
  commitThenDrop: z.boolean().optional(),
  /** Process the request (commit its effect), then wait this long before answering. */
  delayAfterMs: z.number().int().min(0).optional(),
  /** How many matching requests this rule applies to. */
  times: z.number().int().min(1).default(1),
});
export type FaultRule = z.infer<typeof FaultRule>;
export type FaultRuleInput = z.input<typeof FaultRule>;

export interface LoggedRequest {
  seq: number;
  method: string;
  /** The path as requested, without query. */
  path: string;
  /** The matched route, e.g. `GET /v2/search/:id`, for counting by operation. */
  route: string;
  /** "dropped": we closed the connection; "abandoned": the client closed it before the answer. */
  status: number | "dropped" | "abandoned";
  fault?: string;
  at: number;
}

export class Controls {
  private faults: (FaultRule & { left: number })[] = [];
  latencyMs = 0;
  private ratePerSecond = 0;
  private window = { start: 0, count: 0 };
  log: LoggedRequest[] = [];
  connections = 0;
  private seq = 0;

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
    const rule = this.faults.find((f) => f.left > 0 && (!f.method || f.method === method) && (!f.path || new RegExp(f.path).test(path)));
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

  record(entry: Omit<LoggedRequest, "seq" | "at">): void {
    this.log.push({ ...entry, seq: ++this.seq, at: Date.now() });
  }

  counters(): { total: number; byRoute: Record<string, number>; byStatus: Record<string, number>; connections: number } {
    const byRoute: Record<string, number> = {};
    const byStatus: Record<string, number> = {};
    for (const e of this.log) {
      byRoute[e.route] = (byRoute[e.route] ?? 0) + 1;
      byStatus[String(e.status)] = (byStatus[String(e.status)] ?? 0) + 1;
    }
    return { total: this.log.length, byRoute, byStatus, connections: this.connections };
  }

  resetLog(): void {
    this.log = [];
    this.connections = 0;
  }

  reset(): void {
    this.resetLog();
    this.clearFaults();
    this.latencyMs = 0;
    this.setRateLimit(0);
  }
}
