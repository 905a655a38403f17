/**
 * **assumed** schedules on the wire (contract "Schedules, URL groups and signing keys"): the
 * values a create's `Upstash-*` headers carry, the record get and list answer, and the checks both
 * the client and the emulator apply to them.
 */
import { z } from "zod";
import { cronProblem } from "./cron";

/** Letters, digits, `-`, `.` and `_` (contract), not `.` or `..` (it is a path segment). */
export const SCHEDULE_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
export const scheduleId = z
  .string({ error: "must be a string" })
  .regex(SCHEDULE_ID_PATTERN, "may contain only letters, digits, '-', '.' and '_' (1 to 128)")
  .refine((s) => s !== "." && s !== "..", "must not be '.' or '..'");

export const SCHEDULE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** A URL group's name, as a schedule's destination names it. */
export const GROUP_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** Whether a destination is a URL (http or https) rather than a URL group's name. */
export const isUrlDestination = (d: string) => /^https?:\/\//i.test(d);

/** The problem with a destination in one phrase, or undefined: a URL (http or https) or a URL group's name. */
export function destinationProblem(d: string): string | undefined {
  if (isUrlDestination(d)) {
    try {
      new URL(d);
      return undefined;
    } catch {
      return `"${d}" is not a valid URL`;
    }
  }
  return GROUP_NAME_PATTERN.test(d)
    ? undefined
    : `must be an http:// or https:// URL or a URL group's name (letters, digits, '-', '_', '.'), got "${d}"`;
}

export const cron = z.string({ error: "must be a string" }).superRefine((c, ctx) => {
  const problem = cronProblem(c);
  if (problem) ctx.addIssue({ code: "custom", message: `cannot parse "${c}": ${problem}` });
});

/** A duration as the headers carry it: a whole number and a unit, `s`, `m`, `h` or `d` (`10s`, `2m`). */
export const DURATION_PATTERN = /^(\d+)([smhd])$/;
export const duration = z
  .string({ error: 'must be a string such as "10s" or "2m"' })
  .regex(DURATION_PATTERN, 'must be a whole number and a unit s, m, h or d, such as "10s" or "2m"');

/** A duration's seconds; undefined for a value not of DURATION_PATTERN. */
export function durationSeconds(d: string): number | undefined {
  const m = DURATION_PATTERN.exec(d);
  if (!m) return undefined;
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as "s" | "m" | "h" | "d"];
}

/** The content type a body is sent with when none is given. */
export const DEFAULT_CONTENT_TYPE = "text/plain";

/** A schedule's settings, as a create or replace sends them (all but the cron optional). */
export interface ScheduleSettings {
  scheduleId: string;
  cron: string;
  method?: (typeof SCHEDULE_METHODS)[number];
  body?: string;
  contentType?: string;
  /** Sent on to the destination: name -> value. */
  headers?: Record<string, string>;
  retries?: number;
  retryDelay?: string;
  delay?: string;
  timeout?: string;
  callback?: string;
  failureCallback?: string;
  flowControl?: { key: string; parallelism?: number; rate?: number; period?: string };
  labels?: string[];
}

/** The `Upstash-*` headers that carry a schedule's settings (contract). */
export function scheduleHeaders(s: ScheduleSettings): Record<string, string> {
  const h: Record<string, string> = { "Upstash-Cron": s.cron, "Upstash-Schedule-Id": s.scheduleId };
  const set = (name: string, value: string | number | undefined) => {
    if (value !== undefined) h[name] = String(value);
  };
  set("Upstash-Method", s.method);
  set("Upstash-Retries", s.retries);
  set("Upstash-Retry-Delay", s.retryDelay);
  set("Upstash-Delay", s.delay);
  set("Upstash-Timeout", s.timeout);
  set("Upstash-Callback", s.callback);
  set("Upstash-Failure-Callback", s.failureCallback);
  for (const [name, value] of Object.entries(s.headers ?? {})) h[`Upstash-Forward-${name}`] = value;
  if (s.flowControl) {
    const f = s.flowControl;
    h["Upstash-Flow-Control-Key"] = f.key;
    h["Upstash-Flow-Control-Value"] = [
      f.parallelism === undefined ? undefined : `parallelism=${f.parallelism}`,
      f.rate === undefined ? undefined : `rate=${f.rate}`,
      f.period === undefined ? undefined : `period=${f.period}`,
    ]
      .filter((p) => p !== undefined)
      .join(", ");
  }
  if (s.labels?.length) h["Upstash-Label"] = s.labels.join(",");
  return h;
}

const int = () => z.number().int();

/** **assumed** a schedule record (get and list); more fields may come and are kept. */
export const ScheduleRecord = z.looseObject({
  scheduleId: z.string({ error: "is missing" }).min(1, "is empty"),
  cron: z.string({ error: "is missing" }),
  destination: z.string({ error: "is missing" }),
  createdAt: int().optional(),
  method: z.string().optional(),
  header: z.record(z.string(), z.array(z.string())).optional(),
  body: z.string().optional(),
  retries: int().optional(),
  /** Seconds. */
  delay: z.number().optional(),
  /** Seconds; not in the contract's list: read where the service gives it. */
  timeout: z.number().optional(),
  callback: z.string().optional(),
  failureCallback: z.string().optional(),
  callerIp: z.string().optional(),
  isPaused: z.boolean().optional(),
  flowControlKey: z.string().optional(),
  parallelism: int().optional(),
  rate: int().optional(),
  /** Seconds. */
  period: z.number().optional(),
  retryDelayExpression: z.string().optional(),
  labels: z.array(z.string()).optional(),
  lastScheduleTime: int().optional(),
  nextScheduleTime: int().optional(),
  lastScheduleStates: z.record(z.string(), z.unknown()).optional(),
});
export type ScheduleRecord = z.output<typeof ScheduleRecord>;

/** A create's answer: the schedule's id. */
export const CreateScheduleAnswer = z.looseObject({ scheduleId: z.string().min(1) });
