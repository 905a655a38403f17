import { z } from "zod";
import { STATS_PERIODS, type StatsPeriod } from "../api/schemas";
import { UserError } from "../userError";

/** A function's argument checked with the same schema as the resources use: one line naming the field. */
export function validArg<T>(fn: string, field: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UserError(`${fn}: ${field}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  return parsed.data;
}

/** The `period` of the statistics functions. */
export function periodArg(fn: string, value: unknown): StatsPeriod | undefined {
  return validArg(
    fn,
    "period",
    z.enum(STATS_PERIODS, { error: `must be one of ${STATS_PERIODS.join(", ")}` }).optional(),
    value,
  );
}
