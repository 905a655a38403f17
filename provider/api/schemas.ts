/**
 * Wire schemas of the management and messaging APIs (management-api.md, contract.md).
 *
 * The one source of truth for every record and request body: the client parses responses with
 * them, the emulator validates requests and shapes its answers with them, and the resources
 * validate their inputs and derive their outputs from them.
 */
import { z } from "zod";

export const SEARCH_REGIONS = ["eu-west-1", "us-central1"] as const;
export const SEARCH_TYPES = ["free", "payg", "fixed"] as const;
/** Plans the service accepts today; `fixed` is in the enum but refused (contract). */
export const AVAILABLE_SEARCH_TYPES = ["free", "payg"] as const;
/** An argument of a few allowed values; its message names them and what was given. */
export const oneOf = <const T extends readonly [string, ...string[]]>(allowed: T) =>
  z.enum(allowed, { error: (issue) => `must be one of ${allowed.join(", ")}, got ${JSON.stringify(issue.input)}` });

export const MESSAGING_REGIONS = ["eu-central-1", "us-east-1"] as const;
export const MESSAGING_TYPES = ["free", "paid"] as const;
/** A messaging region, validated strictly (requests). */
export const messagingRegion = z.enum(MESSAGING_REGIONS).meta({ title: "MessagingRegion" });

export type SearchRegion = (typeof SEARCH_REGIONS)[number];
export type SearchType = (typeof SEARCH_TYPES)[number];
export type MessagingRegion = (typeof MESSAGING_REGIONS)[number];
/** A value read from the service: one of the known ones, or one this version does not know yet. */
export type Reported<T extends string> = T | (string & {});

/** Index names: 1 to 64 letters, digits, `-` and `_` (contract). */
export const INDEX_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const indexName = z
  .string({ error: "must be a string" })
  .min(1, "must not be empty")
  .max(64, "must be at most 64 characters")
  .regex(INDEX_NAME_PATTERN, "may contain only letters, digits, '-' and '_'");

/**
 * Flow control keys and queue names travel as path segments. The contract leaves their alphabet
 * open; we accept what publishers commonly use and refuse anything path-like.
 * **assumed**: 1 to 128 characters of letters, digits, `-`, `_`, `.` and `:`, not `.` or `..`.
 */
export const MESSAGING_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
function messagingName(what: string) {
  return z
    .string({ error: "must be a string" })
    .min(1, `${what} must not be empty`)
    .max(128, `${what} must be at most 128 characters`)
    .regex(MESSAGING_NAME_PATTERN, `${what} may contain only letters, digits, '-', '_', '.' and ':'`)
    .refine((s) => s !== "." && s !== "..", `${what} must not be '.' or '..'`);
}
export const flowControlKey = messagingName("flow control key");
export const queueName = messagingName("queue name");

/** Budgets: whole dollars, 0 (no limit) or 20 to 10000 (spec 8, contract). */
export const budget = z
  .number({ error: "must be a number" })
  .int("must be a whole number of dollars")
  .min(0, "must be 0 (no limit) or 20 to 10000")
  .max(10000, "must be 0 (no limit) or 20 to 10000")
  .refine((b) => b === 0 || b >= 20, "must be 0 (no limit) or 20 to 10000; the smallest non-zero budget is 20");

/** Database budgets: whole dollars, 0 (no limit) to 10000; the contract names no smallest non-zero value. */
export const databaseBudget = z
  .number({ error: "must be a number" })
  .int("must be a whole number of dollars")
  .min(0, "must be 0 (no limit) to 10000")
  .max(10000, "must be 0 (no limit) to 10000");
export const UpdateDatabaseBudgetBody = z.object({ budget: databaseBudget });

const int = () => z.number().int();

/** Unknown values read from the service: the dynamic provider's stderr reaches the engine's output as a warning. */
const reportUnknownValue = (message: string) => console.warn(`warning: ${message}`);
const reported = new Set<string>();

/**
 * A field read from the service whose documented values may grow: a new region appears before any
 * client knows it, and one unknown value must not fail the read of a whole list. Unknown values
 * are kept as they are and named in one warning each; `aliases` maps spellings the service also
 * uses (`paid` for `payg`). Requests are still validated strictly with z.enum.
 */
function readEnum<const T extends readonly string[]>(
  field: string,
  values: T,
  aliases: Record<string, T[number]> = {},
) {
  return z.string().transform((raw): Reported<T[number]> => {
    const value = aliases[raw] ?? raw;
    if (!(values as readonly string[]).includes(value) && !reported.has(`${field}=${value}`)) {
      reported.add(`${field}=${value}`);
      reportUnknownValue(
        `the service reported ${field} "${value}", which this version of pulumi-mgmt does not know (known: ${values.join(", ")}); it is kept as it is`,
      );
    }
    return value;
  });
}

// ---------------------------------------------------------------------------------------------
// Records. Loose objects: unknown extra fields from the service are accepted and kept.

export const ThroughputPoint = z.looseObject({ x: z.string(), y: z.number() });

/** 2.1 Search index record. */
export const SearchIndexRecord = z.looseObject({
  customer_id: z.string().optional(),
  id: z.string({ error: "is missing" }).min(1, "is empty"),
  name: z.string({ error: "is missing" }),
  endpoint: z.string().optional(),
  type: readEnum("search index type", SEARCH_TYPES, { paid: "payg" }),
  region: readEnum("search index region", SEARCH_REGIONS),
  integration_email: z.string().optional(),
  token: z.string({ error: "is missing" }).min(1, "is empty"),
  read_only_token: z.string().optional(),
  max_vector_count: int().optional(),
  max_monthly_reranks: int().optional(),
  max_daily_updates: int().optional(),
  max_daily_queries: int().optional(),
  max_monthly_bandwidth: int().optional(),
  max_writes_per_second: int().optional(),
  max_query_per_second: int().optional(),
  max_reads_per_request: int().optional(),
  max_writes_per_request: int().optional(),
  creation_time: int().optional(),
  input_enrichment_enabled: z.boolean().optional(),
  throughput_vector: z.array(ThroughputPoint).optional(),
});
export type SearchIndexRecord = z.infer<typeof SearchIndexRecord>;

/** 2.2 Messaging account record. */
export const MessagingAccountRecord = z.looseObject({
  customer_id: z.string().optional(),
  id: z.string({ error: "is missing" }).min(1, "is empty"),
  token: z.string({ error: "is missing" }).min(1, "is empty"),
  read_only_token: z.string().optional(),
  active: z.boolean().optional(),
  /** active, passive, and values the spec does not list. */
  state: z.string().optional(),
  modifying_state: z.string().optional(),
  last_plan_upgrade_time: int().optional(),
  max_message_size: int().optional(),
  max_requests_per_day: int().optional(),
  max_requests_per_day_hard: int().optional(),
  max_endpoints_per_topic: int().optional(),
  max_requests_per_second: int().optional(),
  max_dlq_size: int().optional(),
  max_retries: int().optional(),
  max_topics: int().optional(),
  max_schedules: int().optional(),
  max_events_size: int().optional(),
  max_dlq_retention_time_milis: int().optional(),
  max_delay: int().optional(),
  max_parallelism: int().optional(),
  max_global_parallelism: int().optional(),
  max_queues: int().optional(),
  max_bandwidth_per_second: int().optional(),
  prod_pack_enabled: z.boolean().optional(),
  /** A string, not a boolean (spec 2.2). */
  prometheus_enabled: readEnum("prometheus_enabled", ["true", "false"]).optional(),
  timeout: int().optional(),
  type: readEnum("messaging account type", MESSAGING_TYPES).optional(),
  region: readEnum("messaging account region", MESSAGING_REGIONS),
  reserved_type: z.string().optional(),
  reserved_price: z.number().optional(),
  created_by: z.string().optional(),
  creation_time: int().optional(),
  deletion_time: int().optional(),
  budget: int().optional(),
  enterprise: z.looseObject({ enabled: z.boolean() }).optional(),
});
export type MessagingAccountRecord = z.infer<typeof MessagingAccountRecord>;

/**
 * 2.3 Flow control info (endpoint 6). The spec shows `flowControlKey` and `waitListSize`; the
 * service's clients read more (contract "Additions"). An absent field means "not reported", never
 * false or 0, so every addition stays optional. Some answers spell the wait list `waitlistSize`.
 */
export const FlowControlInfo = z
  .looseObject({
    flowControlKey: z.string(),
    waitListSize: int().optional(),
    waitlistSize: int().optional(),
    parallelismMax: int().optional(),
    parallelismCount: int().optional(),
    rateMax: int().optional(),
    rateCount: int().optional(),
    /** Seconds. */
    ratePeriod: int().optional(),
    /** Milliseconds since the epoch. */
    ratePeriodStart: int().optional(),
    isPaused: z.boolean().optional(),
    isPinnedParallelism: z.boolean().optional(),
    isPinnedRate: z.boolean().optional(),
  })
  .refine((info) => info.waitListSize !== undefined || info.waitlistSize !== undefined, {
    message: "waitListSize is missing",
    path: ["waitListSize"],
  })
  .transform(({ waitlistSize, ...info }) => ({ ...info, waitListSize: (info.waitListSize ?? waitlistSize) as number }));
export type FlowControlInfo = z.output<typeof FlowControlInfo>;

/** **assumed** global parallelism of the account; a field may be omitted when it is 0. */
export const GlobalParallelism = z.looseObject({
  parallelismMax: int().default(0),
  parallelismCount: int().default(0),
});
export type GlobalParallelism = z.output<typeof GlobalParallelism>;

/** **assumed** queue record (get and list). */
export const QueueRecord = z.looseObject({
  name: z.string({ error: "is missing" }).min(1, "is empty"),
  parallelism: int(),
  lag: int().optional(),
  paused: z.boolean(),
  createdAt: int().optional(),
  updatedAt: int().optional(),
});
export type QueueRecord = z.output<typeof QueueRecord>;

/** A queue's parallelism: how many messages it delivers at once. */
/** An account's signing keys (contract "signing keys"): receivers verify message signatures with either. */
export const SigningKeysRecord = z.looseObject({ current: z.string().min(1), next: z.string().min(1) });
export type SigningKeysRecord = z.output<typeof SigningKeysRecord>;

export const queueParallelism = z
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be at least 1");

/** **assumed** queue upsert body: always the full desired state (an omitted parallelism resets to 1). */
export const UpsertQueueBody = z.object({
  queueName,
  parallelism: queueParallelism,
  paused: z.boolean({ error: "must be true or false" }),
});
export type UpsertQueueBody = z.infer<typeof UpsertQueueBody>;

/** **assumed** pin query: each part optional, at least one; the period in seconds. */
const positive = (what: string) =>
  z.coerce
    .number({ error: `${what} must be a number` })
    .int(`${what} must be a whole number`)
    .min(1, `${what} must be at least 1`);
export const PinQuery = z
  .object({
    parallelism: positive("parallelism").optional(),
    rate: positive("rate").optional(),
    period: positive("period").optional(),
  })
  .refine(
    (q) => q.parallelism !== undefined || q.rate !== undefined || q.period !== undefined,
    "give at least one of parallelism, rate, period",
  );
export type PinQuery = z.output<typeof PinQuery>;

/** **assumed** unpin query: `parallelism=true` and/or `rate=true`. */
export const UnpinQuery = z
  .object({ parallelism: z.enum(["true", "false"]).optional(), rate: z.enum(["true", "false"]).optional() })
  .refine((q) => q.parallelism === "true" || q.rate === "true", "give parallelism=true, rate=true or both");

/** 2.4 Error body. The service may also answer a bare JSON string. */
/** Periods of the statistics endpoints (contract "The rest of the named operations"). */
export const STATS_PERIODS = ["1h", "3h", "12h", "1d", "3d", "7d", "30d"] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];
const count = () => z.number().optional();
const counts = () => z.array(z.number()).optional();
const points = () => z.array(ThroughputPoint).optional();
/** The contract says "series" without a shape: numbers per day, or `{x, y}` points. */
const series = () => z.array(z.union([z.number(), ThroughputPoint])).optional();
/**
 * One index's statistics (`/v2/search/{id}/stats`), as the contract gives the service's reference:
 * every field optional, unknown fields (more latency figures, fields added later) passed through.
 */
export const SearchIndexStats = z.looseObject({
  pending_index_count: count(),
  current_vector_count: count(),
  vector_count: count(),
  data_size: count(),
  storage_usage: count(),
  daily_query_count: count(),
  daily_update_count: count(),
  monthly_query_count: count(),
  monthly_update_count: count(),
  monthly_bandwidth_usage: count(),
  monthly_cost: count(),
  daily_rerank_count: count(),
  monthly_rerank_count: count(),
  days: z.array(z.string()).optional(),
  daily_query_requests: counts(),
  daily_update_requests: counts(),
  daily_bandwidths: counts(),
  daily_rerank_requests: counts(),
  query_throughput: points(),
  update_throughput: points(),
  // Latency figures (query_latency_mean, query_latency_99, update_latency_mean, ...): passed through.
});
export type SearchIndexStats = z.output<typeof SearchIndexStats>;
/** One messaging account's statistics (`/v2/messaging/stats/{id}`), as the contract gives them; unknown fields passed through. */
export const MessagingAccountStats = z.looseObject({
  days: z.array(z.string()).optional(),
  daily_requests: series(),
  daily_billings: series(),
  daily_bandwidths: series(),
  daily_used: series(),
  daily_messaging_messages: series(),
  dlq_message_count: count(),
  daily_bandwidth_used: count(),
  total_monthly_billing: count(),
});
export type MessagingAccountStats = z.output<typeof MessagingAccountStats>;
/** Totals over all of a user's indexes (`GET /v2/search/stats`). */
export const SearchStats = z.looseObject({
  record_count: int(),
  request: int(),
  bandwidth: int(),
  storage: int(),
  rerank_count: int(),
  billing: z.number(),
});
export type SearchStats = z.output<typeof SearchStats>;

/** Messaging plans an account can be moved to; there is no way back to `free`. */
export const MESSAGING_PLANS = ["paid", "fixed_1m", "fixed_10m", "fixed_100m"] as const;
export type MessagingPlan = (typeof MESSAGING_PLANS)[number];
/** The plan names on the wire (set-plan's `plan_name`). */
export const MESSAGING_PLAN_NAMES: Record<MessagingPlan, string> = {
  paid: "paid",
  fixed_1m: "messaging_fixed_1m",
  fixed_10m: "messaging_fixed_10m",
  fixed_100m: "messaging_fixed_100m",
};
export const SetMessagingPlanBody = z.object({
  plan_name: z.enum(Object.values(MESSAGING_PLAN_NAMES) as [string, ...string[]]),
});

/** The service's outbound addresses: IPv4 CIDR strings. */
export const Ipv4Addresses = z.array(z.string());

/**
 * A database as the budget endpoints know it (contract): `region` is always "global", where it
 * runs is `primary_region`. Other fields may come and are passed through; never a password.
 */
export const DatabaseRecord = z.looseObject({
  database_id: z.string({ error: "is missing" }).min(1, "is empty"),
  database_name: z.string().optional(),
  region: z.string().optional(),
  primary_region: z.string().optional(),
  read_regions: z.array(z.string()).optional(),
  type: z.string().optional(),
  state: z.string().optional(),
  budget: int().optional(),
  creation_time: z.number().optional(),
  endpoint: z.string().optional(),
  port: z.number().optional(),
  tls: z.boolean().optional(),
});
export type DatabaseRecord = z.output<typeof DatabaseRecord>;

export const ErrorBody = z.object({ error: z.string() });
/** The body of every write the contract answers with the JSON string "OK"; anything else is not the service's answer. */
export const OkBody = z.literal("OK");

// ---------------------------------------------------------------------------------------------
// Request bodies.

/** Endpoint 1. All three fields are required (contract). */
export const CreateSearchIndexBody = z.object({
  name: indexName,
  region: z.enum(SEARCH_REGIONS),
  type: z.enum(SEARCH_TYPES),
});
export type CreateSearchIndexBody = z.infer<typeof CreateSearchIndexBody>;

/** **assumed** rename body. */
export const RenameSearchIndexBody = z.object({ name: indexName });

/** **assumed** set plan body (contract "Additions"). */
export const SetPlanBody = z.object({ target_plan: z.enum(SEARCH_TYPES) });

/** Endpoint 5. */
export const UpdateBudgetBody = z.object({ budget });

// ---------------------------------------------------------------------------------------------
// One mapping from snake_case wire records to the camelCase objects resources expose.

type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;
/** CamelCased fields of a record; the loose schemas' index signature for extra fields is dropped. */
export type Camelized<T> = {
  [K in keyof T as K extends string ? (string extends K ? never : CamelCase<K>) : never]: T[K];
};

export function camelKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Shallow: nested objects (throughput points, `enterprise`) keep their own field names. */
export function camelize<T extends Record<string, unknown>>(record: T): Camelized<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) out[camelKey(k)] = v;
  return out as Camelized<T>;
}

export type SearchIndex = Camelized<SearchIndexRecord>;
export type MessagingAccount = Camelized<MessagingAccountRecord>;

/** zod's own messages, each prefixed with the field it concerns: "region: Invalid option: ...". */
export function describeIssues(error: z.ZodError, prefix = ""): string[] {
  return error.issues.map((issue) => {
    const field = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
    return field ? `${field}: ${issue.message}` : issue.message;
  });
}
