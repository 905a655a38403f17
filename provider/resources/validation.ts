import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { Api } from "../api/endpoints";
import { ConfigError } from "../config";
import { apiClient } from "../runtime";
import { UNKNOWN_VALUE } from "../wireSentinels";

/**
 * The inputs a `read` hands back for later diffs. Pulumi types `ReadResult.inputs` as the
 * outputs; they are the resource's inputs.
 */
export function readInputs<Outputs>(inputs: object): Outputs {
  return inputs as Outputs;
}

/** The engine's sentinel for a value not known until apply (`pulumi.runtime.unknownValue`; wireSentinels.ts). */
export const UNKNOWN: string = UNKNOWN_VALUE;

/** A value not known until apply: what the engine passes for it. */
export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/** Whether a value is unknown or holds an unknown anywhere inside (an object or list built from outputs). */
function holdsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(holdsUnknown);
  return typeof value === "object" && value !== null && Object.values(value).some(holdsUnknown);
}

/** Whether the value at `path`, or one it lies inside, is or holds a value not known yet. */
function dependsOnUnknown(root: unknown, path: readonly PropertyKey[]): boolean {
  let value = root;
  for (const key of path) {
    if (isUnknown(value)) return true;
    value = typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return holdsUnknown(value);
}

/**
 * `check` of every resource: zod validates the inputs before anything is sent, and each problem
 * becomes a failure that names the field and says what is allowed. Values not yet known at
 * preview are checked when they are.
 */
export function checkWith<T extends z.ZodObject>(schema: T, news: Record<string, unknown>): pulumi.dynamic.CheckResult {
  const known: Record<string, unknown> = {};
  const unknownKeys = new Set<string>();
  for (const [k, v] of Object.entries(news)) {
    if (isUnknown(v)) unknownKeys.add(k);
    else known[k] = v;
  }
  const parsed = schemaFor(schema, unknownKeys).safeParse(known);
  if (parsed.success) return { inputs: { ...news, ...(parsed.data as object) } };
  // An unknown inside a field (a pin's rate from another resource's output) is checked when known;
  // a part the field may not have is wrong whatever the unknown turns out to be.
  const issues = parsed.error.issues.filter(
    (issue) => issue.code === "unrecognized_keys" || !dependsOnUnknown(known, issue.path),
  );
  if (issues.length === 0) return { inputs: news };
  return {
    inputs: news,
    failures: issues.map((issue) => {
      const property = issue.path.length > 0 ? issue.path.map(String).join(".") : "inputs";
      return { property, reason: `${property}: ${issue.message}` };
    }),
  };
}

/**
 * Every schema with some fields made optional is a new one that zod compiles again on its first parse: made per call,
 * that compile was most of the cost of checking 200 resources. In an `up` nothing is unknown, so
 * the schema itself serves; a preview's few combinations of unknown fields are kept.
 */
const partials = new WeakMap<z.ZodObject, Map<string, z.ZodObject>>();
export function schemaFor(schema: z.ZodObject, unknownKeys: ReadonlySet<string>): z.ZodObject {
  if (unknownKeys.size === 0) return schema;
  const key = [...unknownKeys].sort().join(",");
  let bySet = partials.get(schema);
  if (!bySet) partials.set(schema, (bySet = new Map()));
  let partial = bySet.get(key);
  if (!partial) {
    // The schema with each unknown field made optional (an unknown value is absent from what is parsed).
    const optional = Object.fromEntries(
      [...unknownKeys].filter((k) => k in schema.shape).map((k) => [k, schema.shape[k].optional()]),
    );
    bySet.set(key, (partial = schema.extend(optional)));
  }
  return partial;
}

/**
 * The settings a resource's calls will need but the provider was not given (or were given
 * malformed), as check failures: a preview would otherwise show "+ create" for an `up` that is
 * sure to fail. `token` is the resource's own token input, if any (unknown at preview counts as
 * given).
 */
export function settingsFailures(apis: readonly Api[], token?: unknown): pulumi.dynamic.CheckFailure[] {
  try {
    apiClient().assertConfigured(apis, token === undefined || token === null ? undefined : String(token));
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return [{ property: err.setting ?? "config", reason: err.message }];
    throw err;
  }
}

/** `checkWith`, plus the settings the resource's calls need. */
export function checkWithSettings<T extends z.ZodObject>(
  schema: T,
  news: Record<string, unknown>,
  apis: readonly Api[],
  token?: unknown,
): pulumi.dynamic.CheckResult {
  const result = checkWith(schema, news);
  const failures = [...settingsFailures(apis, token), ...(result.failures ?? [])];
  return failures.length > 0 ? { inputs: result.inputs, failures } : result;
}
