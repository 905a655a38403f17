import type { z } from "zod";
import { UserError } from "../userError";

/** A function's argument checked with the same schema as the resources use: one line naming the field. */
export function validArg<T>(fn: string, field: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UserError(`${fn}: ${field}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  return parsed.data;
}
