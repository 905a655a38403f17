import type { z } from "zod";
import { UserError } from "../userError";

/**
 * A function's arguments checked with its schema (args.ts, which the plugin's invokes check too)
 * before anything is sent: every problem in one line, each naming the argument.
 */
export function checkedArgs<S extends z.ZodObject>(fn: string, schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  throw new UserError(
    `${fn}: ${parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "arguments"}: ${i.message}`).join("; ")}`,
  );
}
