/**
 * Schedules (messaging API, Bearer, regional; contract "Schedules, URL groups and signing keys"):
 * create or replace (settings in `Upstash-*` headers, the body as sent), get, list, delete, pause
 * and resume. A create with the id of an existing schedule replaces its settings in place and
 * keeps its pause; more schedules than the account's `max_schedules` answer 412.
 */
import { cronProblem, nextRun, parseCron } from "pulumi-mgmt/internal/api/cron";
import {
  SCHEDULE_ID_PATTERN,
  SCHEDULE_METHODS,
  destinationProblem,
  durationSeconds,
  type ScheduleRecord,
} from "pulumi-mgmt/internal/api/scheduleSchemas";
import { HttpError, OK, type Ctx, type EmulatorState, type Handler } from "../http";
import type { Schedule } from "../state";

const FORWARD = "upstash-forward-";

function header(ctx: Ctx, name: string): string | undefined {
  const v = ctx.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(",") : v;
}

function seconds(ctx: Ctx, name: string): number | undefined {
  const v = header(ctx, name);
  if (v === undefined) return undefined;
  const s = durationSeconds(v);
  if (s === undefined) throw new HttpError(400, `invalid ${name}: "${v}" is not a duration such as 10s or 2m`);
  return s;
}

function wholeNumber(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) throw new HttpError(400, `invalid ${what}: "${text}" is not a whole number`);
  return Number(text);
}

/** `parallelism=N, rate=N, period=Ns` (each part optional, at least one). */
function flowControlValue(text: string | undefined): Pick<Schedule, "parallelism" | "rate" | "period"> {
  if (!text) throw new HttpError(400, "Upstash-Flow-Control-Value is required with Upstash-Flow-Control-Key");
  const out: Pick<Schedule, "parallelism" | "rate" | "period"> = {};
  for (const part of text.split(",")) {
    const [k, v] = part.split("=").map((s) => s.trim());
    if (k === "parallelism" || k === "rate") out[k] = wholeNumber(v, `Upstash-Flow-Control-Value ${k}`);
    else if (k === "period") {
      const s = /^\d+$/.test(v ?? "") ? Number(v) : durationSeconds(v ?? "");
      if (s === undefined) throw new HttpError(400, `invalid Upstash-Flow-Control-Value period: "${v}"`);
      out.period = s;
    } else throw new HttpError(400, `invalid Upstash-Flow-Control-Value: unknown part "${part.trim()}"`);
  }
  return out;
}

export function scheduleHandlers(emu: EmulatorState) {
  const scheduleOf = (ctx: Ctx): Schedule => {
    const schedule = ctx.account().schedules[ctx.params.scheduleId];
    if (!schedule) throw new HttpError(404, `schedule ${ctx.params.scheduleId} not found`);
    return schedule;
  };
  const recordOf = (scheduleId: string, s: Schedule): ScheduleRecord => {
    let next: number | undefined;
    try {
      next = s.cron ? nextRun(parseCron(s.cron), Date.now()) : undefined;
    } catch {
      next = undefined;
    }
    return {
      scheduleId,
      cron: s.cron ?? "",
      destination: s.destination,
      createdAt: s.createdAt ?? 0,
      method: s.method ?? "POST",
      header: s.header ?? {},
      body: s.body ?? "",
      retries: s.retries ?? 3,
      delay: s.delay ?? 0,
      ...(s.timeout !== undefined && { timeout: s.timeout }),
      ...(s.callback !== undefined && { callback: s.callback }),
      ...(s.failureCallback !== undefined && { failureCallback: s.failureCallback }),
      callerIp: "127.0.0.1",
      isPaused: s.paused,
      ...(s.flowControlKey !== undefined && {
        flowControlKey: s.flowControlKey,
        parallelism: s.parallelism,
        rate: s.rate,
        period: s.period,
      }),
      ...(s.retryDelayExpression !== undefined && { retryDelayExpression: s.retryDelayExpression }),
      labels: s.labels ?? [],
      ...(s.lastScheduleTime !== undefined && { lastScheduleTime: s.lastScheduleTime }),
      ...(next !== undefined && { nextScheduleTime: next }),
      lastScheduleStates: {},
    };
  };

  return {
    createSchedule: (ctx) => {
      const account = ctx.account();
      const destination = ctx.params.destination;
      const wrong = destinationProblem(destination);
      if (wrong) throw new HttpError(400, `invalid destination: ${wrong}`);
      const cron = header(ctx, "Upstash-Cron");
      if (!cron) throw new HttpError(400, "Upstash-Cron header is required");
      const cronWrong = cronProblem(cron);
      if (cronWrong) throw new HttpError(400, `invalid cron "${cron}": ${cronWrong}`);
      const id = header(ctx, "Upstash-Schedule-Id") ?? `scd_${emu.controls.arrival()}${Date.now().toString(36)}`;
      if (!SCHEDULE_ID_PATTERN.test(id) || id === "." || id === "..")
        throw new HttpError(400, `invalid schedule id "${id}": letters, digits, '-', '.' and '_' only`);
      const method = (header(ctx, "Upstash-Method") ?? "POST").toUpperCase();
      if (!(SCHEDULE_METHODS as readonly string[]).includes(method))
        throw new HttpError(400, `invalid Upstash-Method "${method}": one of ${SCHEDULE_METHODS.join(", ")}`);
      const forwarded: Record<string, string[]> = {};
      for (const [name, value] of Object.entries(ctx.headers)) {
        if (name.startsWith(FORWARD) && value !== undefined)
          forwarded[name.slice(FORWARD.length)] = Array.isArray(value) ? value : [value];
      }
      const contentType = header(ctx, "content-type");
      if (contentType) forwarded["content-type"] = [contentType];
      const flowKey = header(ctx, "Upstash-Flow-Control-Key");
      const labels = header(ctx, "Upstash-Label");
      const settings: Omit<Schedule, "paused" | "createdAt" | "creates"> = {
        destination,
        cron,
        method,
        header: forwarded,
        body: typeof ctx.body === "string" ? ctx.body : ctx.body === undefined ? "" : JSON.stringify(ctx.body),
        retries: wholeNumber(header(ctx, "Upstash-Retries"), "Upstash-Retries"),
        retryDelayExpression: header(ctx, "Upstash-Retry-Delay"),
        delay: seconds(ctx, "Upstash-Delay"),
        timeout: seconds(ctx, "Upstash-Timeout"),
        callback: header(ctx, "Upstash-Callback"),
        failureCallback: header(ctx, "Upstash-Failure-Callback"),
        flowControlKey: flowKey,
        ...(flowKey !== undefined && flowControlValue(header(ctx, "Upstash-Flow-Control-Value"))),
        labels: labels
          ? labels
              .split(",")
              .map((l) => l.trim())
              .filter(Boolean)
          : undefined,
      };
      const existing = account.schedules[id];
      if (!existing) {
        const limit = account.record.max_schedules ?? 10;
        if (Object.keys(account.schedules).length >= limit)
          throw new HttpError(412, `schedule limit reached: this account may have at most ${limit} schedules`);
      }
      // A replace keeps the pause and the history; every setting is the request's.
      account.schedules[id] = {
        ...settings,
        paused: existing?.paused ?? false,
        createdAt: existing?.createdAt ?? Date.now(),
        lastScheduleTime: existing?.lastScheduleTime,
        creates: (existing?.creates ?? 0) + 1,
      };
      return { body: { scheduleId: id }, mutates: true };
    },
    getSchedule: (ctx) => ({ body: recordOf(ctx.params.scheduleId, scheduleOf(ctx)) }),
    listSchedules: (ctx) => ({
      body: Object.entries(ctx.account().schedules).map(([id, s]) => recordOf(id, s)),
    }),
    deleteSchedule: (ctx) => {
      scheduleOf(ctx);
      delete ctx.account().schedules[ctx.params.scheduleId];
      return OK;
    },
    pauseSchedule: (ctx) => {
      scheduleOf(ctx).paused = true;
      return OK;
    },
    resumeSchedule: (ctx) => {
      scheduleOf(ctx).paused = false;
      return OK;
    },
  } satisfies Record<string, Handler>;
}
