/**
 * What the statistics endpoints share (contract "The rest of the named operations"): the
 * `period` query, time series of `{x, y}` points whose length follows the period, and stable
 * per-object usage figures. Plausible numbers, not the real service's.
 */
import { z } from "zod";
import { STATS_PERIODS, type StatsPeriod } from "pulumi-mgmt/internal/api/schemas";
import { parseOr400, type Params } from "./http";

const StatsQuery = z.object({
  period: z.enum(STATS_PERIODS, { error: `must be one of ${STATS_PERIODS.join(", ")}` }).default("1h"),
});

/** The `period` query parameter (default 1h); anything else is a 400 naming the allowed values. */
export function periodOf(query: Params): StatsPeriod {
  return parseOr400(StatsQuery, query, "stats query").period;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Each period's resolution: how many points a series has, and how far apart. */
export const RESOLUTION: Record<StatsPeriod, { points: number; stepMs: number }> = {
  "1h": { points: 60, stepMs: MINUTE },
  "3h": { points: 36, stepMs: 5 * MINUTE },
  "12h": { points: 48, stepMs: 15 * MINUTE },
  "1d": { points: 24, stepMs: HOUR },
  "3d": { points: 72, stepMs: HOUR },
  "7d": { points: 168, stepMs: HOUR },
  "30d": { points: 30, stepMs: DAY },
};

/** Days a period's daily series covers: at least today. */
export function daysOf(period: StatsPeriod): number {
  const { points, stepMs } = RESOLUTION[period];
  return Math.max(1, Math.ceil((points * stepMs) / DAY));
}

export interface Point {
  x: string;
  y: number;
}

/** `YYYY-MM-DD HH:MM:SS.mmm +0000 UTC`, the shape of the service's metric timestamps (spec 2.1). */
export function metricTime(at = Date.now()): string {
  return new Date(at).toISOString().replace("T", " ").replace("Z", " +0000 UTC");
}

/**
 * A series over the period at its resolution, oldest first, ending now: values scattered around
 * `level` (±25%), whole numbers unless `decimals` is given.
 */
export function series(period: StatsPeriod, level: number, decimals = 0): Point[] {
  const { points, stepMs } = RESOLUTION[period];
  return timeline(points, stepMs).map((x) => ({
    x,
    y: round(Math.max(0, level * (0.75 + Math.random() / 2)), decimals),
  }));
}

/** A series of counts over the period: each point counts one step's share of `perDay`. */
export function countSeries(period: StatsPeriod, perDay: number): Point[] {
  return series(period, (perDay * RESOLUTION[period].stepMs) / DAY);
}

/** One point per day of the period, oldest first, each at the start of its day (UTC). */
export function dailySeries(period: StatsPeriod, level: number, decimals = 0): Point[] {
  return timeline(daysOf(period), DAY, Math.floor(Date.now() / DAY) * DAY).map((x) => ({
    x,
    y: round(Math.max(0, level * (0.75 + Math.random() / 2)), decimals),
  }));
}

function timeline(points: number, stepMs: number, end = Date.now()): string[] {
  return Array.from({ length: points }, (_, i) => metricTime(end - (points - 1 - i) * stepMs));
}

function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

/** A stable number for an object (FNV-1a of its id): its usage figures do not change between reads. */
export function usageSeed(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
