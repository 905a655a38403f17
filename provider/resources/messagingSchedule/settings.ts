/**
 * A schedule's declared settings three ways: as the create that replaces it sends them, as the
 * record the service answers reads back, and in a form two of them compare in (the service reads
 * "10s" back as 10, a time zone inside the cron, header names in lower case).
 */
import {
  DEFAULT_CONTENT_TYPE,
  durationSeconds,
  type ScheduleRecord,
  type ScheduleSettings,
} from "../../api/scheduleSchemas";
import type { ScheduleFlowControl, ScheduleInputs } from "./schema";

export type Declared = Omit<ScheduleInputs, "region" | "token" | "paused" | "scheduleId">;
export type SettingName = keyof Declared;

export const SETTING_NAMES: readonly SettingName[] = [
  "destination",
  "cron",
  "timeZone",
  "method",
  "body",
  "contentType",
  "headers",
  "retries",
  "retryDelay",
  "delay",
  "timeout",
  "callback",
  "failureCallback",
  "flowControl",
  "labels",
];

/** The cron as the service holds it: the time zone inside. */
export const fullCron = (s: Pick<Declared, "cron" | "timeZone">) =>
  s.timeZone ? `CRON_TZ=${s.timeZone} ${s.cron}` : s.cron;

/** The create that puts these settings in place, with this package's id for the schedule. */
export function wireSettings(s: Declared, scheduleId: string): ScheduleSettings {
  return {
    scheduleId,
    cron: fullCron(s),
    method: s.method,
    body: s.body,
    contentType: s.contentType,
    headers: s.headers,
    retries: s.retries,
    retryDelay: s.retryDelay,
    delay: s.delay,
    timeout: s.timeout,
    callback: s.callback,
    failureCallback: s.failureCallback,
    flowControl: s.flowControl,
    labels: s.labels,
  };
}

const seconds = (d: string | undefined) => (d === undefined ? undefined : durationSeconds(d));
const lowerKeys = (h: Record<string, string> | undefined) =>
  h &&
  Object.fromEntries(
    Object.entries(h)
      .map(([k, v]) => [k.toLowerCase(), v])
      .sort(([a], [b]) => a.localeCompare(b)),
  );

/** Each setting in the form two declarations of it compare in; undefined is "not declared". */
function comparable(s: Partial<Declared>): Record<SettingName, unknown> {
  return {
    destination: s.destination,
    // The cron and its zone compare as one: "CRON_TZ=X c" written either way is the same schedule.
    cron: s.cron === undefined ? undefined : fullCron({ cron: s.cron, timeZone: s.timeZone }),
    timeZone: undefined,
    method: s.method,
    body: s.body,
    contentType: s.contentType?.toLowerCase(),
    headers: lowerKeys(s.headers),
    retries: s.retries,
    retryDelay: s.retryDelay,
    delay: seconds(s.delay),
    timeout: seconds(s.timeout),
    callback: s.callback,
    failureCallback: s.failureCallback,
    flowControl: s.flowControl && { ...s.flowControl, period: seconds(s.flowControl.period) },
    labels: s.labels,
  };
}

/** JSON with every object's keys sorted: the engine hands objects back with their keys in its own order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** The settings whose declared values differ between two declarations. */
export function changedSettings(olds: Partial<Declared>, news: Partial<Declared>): SettingName[] {
  const a = comparable(olds);
  const b = comparable(news);
  return SETTING_NAMES.filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k]));
}

const orUndefined = <T>(v: T | undefined, empty: (v: T) => boolean) => (v === undefined || empty(v) ? undefined : v);

/**
 * A schedule record as the settings a user would declare to have it (an import's inputs, a
 * refresh's outputs). For an import, the content type sent when none is declared reads as none.
 */
export function observedSettings(r: ScheduleRecord, forImport = false): Declared {
  const tz = /^CRON_TZ=(\S+)\s+(.*)$/.exec(r.cron);
  const { "content-type": contentType, ...forwarded } = r.header ?? {};
  const flowControl: ScheduleFlowControl | undefined =
    r.flowControlKey === undefined
      ? undefined
      : {
          key: r.flowControlKey,
          ...(r.parallelism !== undefined && { parallelism: r.parallelism }),
          ...(r.rate !== undefined && { rate: r.rate }),
          ...(r.period !== undefined && { period: `${r.period}s` }),
        };
  return {
    destination: r.destination,
    cron: tz ? tz[2] : r.cron,
    timeZone: tz?.[1],
    method: r.method as Declared["method"],
    body: orUndefined(r.body, (b) => b === ""),
    contentType: orUndefined(contentType?.[0], (c) => forImport && c.toLowerCase() === DEFAULT_CONTENT_TYPE),
    headers: orUndefined(
      Object.fromEntries(Object.entries(forwarded).map(([k, v]) => [k, v.join(",")])),
      (h) => Object.keys(h).length === 0,
    ),
    retries: r.retries,
    retryDelay: r.retryDelayExpression,
    delay: r.delay ? `${r.delay}s` : undefined,
    timeout: r.timeout ? `${r.timeout}s` : undefined,
    callback: r.callback,
    failureCallback: r.failureCallback,
    flowControl,
    labels: orUndefined(r.labels, (l) => l.length === 0),
  };
}

/**
 * What a refresh records: for each setting the stack declared, the declared value while the
 * service holds the same, else what the service holds (the next diff shows it and `up` puts the
 * declared one back). Undeclared settings stay undeclared.
 */
export function refreshedSettings(declared: Partial<Declared>, r: ScheduleRecord): Partial<Declared> {
  const seen = observedSettings(r);
  const out: Partial<Declared> = { ...declared };
  for (const k of SETTING_NAMES) {
    if (k === "timeZone") continue;
    const wasDeclared = k === "cron" ? true : declared[k] !== undefined;
    if (!wasDeclared) continue;
    if (changedSettings(pick(declared, k), pick(seen, k)).length === 0) continue;
    (out as Record<string, unknown>)[k] = seen[k];
    if (k === "cron") out.timeZone = seen.timeZone;
  }
  return out;
}

function pick(s: Partial<Declared>, k: SettingName): Partial<Declared> {
  return k === "cron" ? { cron: s.cron, timeZone: s.timeZone } : { [k]: s[k] };
}
