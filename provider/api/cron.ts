/**
 * A schedule's cron (contract "Schedules"): five fields, one minute at finest, optionally prefixed
 * `CRON_TZ=<zone> `. `parseCron` says what is wrong in one phrase; `nextRun` is the next minute it
 * fires (the emulator's `nextScheduleTime`).
 */

import { UserError } from "../userError";

const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  {
    name: "month",
    min: 1,
    max: 12,
    names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
  },
  { name: "day of week", min: 0, max: 7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] },
] as const;

export interface Cron {
  zone?: string;
  /** Allowed values per field (minute, hour, day of month, month, day of week with 7 as 0). */
  sets: Set<number>[];
  /** Whether day of month / day of week were `*` (cron's either-or rule applies when neither is). */
  anyDay: boolean;
  anyWeekday: boolean;
}

/** The zone is one the runtime knows (IANA names, UTC). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function valueOf(text: string, field: (typeof FIELDS)[number]): number {
  const names = "names" in field ? (field.names as readonly string[]) : undefined;
  const named = names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return named + field.min;
  if (!/^\d+$/.test(text)) throw new UserError(`${field.name} "${text}" is not a number`);
  const n = Number(text);
  if (n < field.min || n > field.max) throw new UserError(`${field.name} ${n} is outside ${field.min}-${field.max}`);
  return n;
}

function parseField(text: string, field: (typeof FIELDS)[number]): Set<number> {
  const set = new Set<number>();
  for (const part of text.split(",")) {
    const [range, stepText] = part.split("/");
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1)
      throw new UserError(`${field.name} step "${stepText}" is not a positive whole number`);
    let lo: number;
    let hi: number;
    if (range === "*") [lo, hi] = [field.min, field.max];
    else if (range.includes("-")) {
      const [a, b] = range.split("-");
      [lo, hi] = [valueOf(a, field), valueOf(b, field)];
      if (lo > hi) throw new UserError(`${field.name} range "${range}" runs backwards`);
    } else {
      lo = valueOf(range, field);
      hi = stepText === undefined ? lo : field.max;
    }
    for (let v = lo; v <= hi; v += step) set.add(field.name === "day of week" && v === 7 ? 0 : v);
  }
  return set;
}

/** The cron parsed, or an Error whose message says what is wrong. */
export function parseCron(expression: string): Cron {
  let text = expression.trim();
  let zone: string | undefined;
  const tz = /^CRON_TZ=(\S+)\s+(.*)$/.exec(text);
  if (tz) {
    [, zone, text] = tz;
    if (!isTimeZone(zone)) throw new UserError(`unknown time zone "${zone}"`);
  }
  const parts = text.split(/\s+/);
  if (parts.length !== 5)
    throw new UserError(`needs five fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  return {
    zone,
    sets: parts.map((p, i) => parseField(p, FIELDS[i])),
    anyDay: parts[2] === "*",
    anyWeekday: parts[4] === "*",
  };
}

/** The problem with a cron in one phrase, or undefined when it parses. */
export function cronProblem(expression: string): string | undefined {
  try {
    parseCron(expression);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The wall-clock fields of a moment in a zone (UTC without one). */
function wallClock(ms: number, zone: string | undefined) {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone ?? "UTC",
    hourCycle: "h23",
    minute: "numeric",
    hour: "numeric",
    day: "numeric",
    month: "numeric",
    weekday: "short",
  }).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return {
    minute: Number(get("minute")),
    hour: Number(get("hour")),
    day: Number(get("day")),
    month: Number(get("month")),
    weekday: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(get("weekday")),
  };
}

/** The first whole minute after `fromMs` the cron fires at, within about four years; undefined if none. */
export function nextRun(cron: Cron, fromMs: number): number | undefined {
  const MINUTE = 60_000;
  let t = Math.floor(fromMs / MINUTE) * MINUTE + MINUTE;
  const end = fromMs + 4 * 366 * 24 * 60 * MINUTE;
  const [minutes, hours, days, months, weekdays] = cron.sets;
  while (t < end) {
    const w = wallClock(t, cron.zone);
    const dayOk =
      cron.anyDay || cron.anyWeekday
        ? days.has(w.day) && weekdays.has(w.weekday)
        : days.has(w.day) || weekdays.has(w.weekday);
    // Skip a whole day or hour that cannot match: offsets are whole minutes, so steps stay aligned.
    if (!months.has(w.month) || !dayOk) t += ((23 - w.hour) * 60 + (60 - w.minute)) * MINUTE;
    else if (!hours.has(w.hour)) t += (60 - w.minute) * MINUTE;
    else if (!minutes.has(w.minute)) t += MINUTE;
    else return t;
  }
  return undefined;
}
