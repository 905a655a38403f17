/**
 * The emulator's data: users, their search indexes, messaging accounts and databases, and the
 * flow control keys and queues of each account. Records are stored in their wire shape
 * (provider/api/schemas).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type {
  DatabaseRecord,
  MessagingAccountRecord,
  MessagingPlan,
  MessagingRegion,
  SearchIndexRecord,
  SearchRegion,
  SearchType,
} from "pulumi-mgmt/internal/api/schemas";
import { MESSAGING_REGIONS } from "pulumi-mgmt/internal/api/schemas";

/** A seeded user as tests and `mgmt-emulator` print it: credentials and accounts with tokens. */
export interface SeedUser {
  username: string;
  password: string;
  accounts: { id: string; region: string; type: string; token: string }[];
}

export interface User {
  username: string;
  password: string;
  customerId: string;
}

/** Limits of a flow control key: parallelism, and a rate per period (seconds). */
export interface FlowLimits {
  parallelism?: number;
  rate?: number;
  period?: number;
}

export interface FlowKey {
  waitListSize: number;
  paused: boolean;
  /** Resets of the rate counter: by resetRate, or by a pin (contract). */
  rateResets: number;
  /** Limits the latest published messages carried. */
  carried?: FlowLimits;
  /** Limits pinned through the API; while pinned, carried ones are ignored. */
  pinned?: FlowLimits;
  /** Pin requests processed. */
  pins?: number;
  rateCount?: number;
  ratePeriodStart?: number;
}

export interface Queue {
  paused: boolean;
  /** Resume requests processed. */
  resumes: number;
  /** 1 when never set: the upsert's default (contract). */
  parallelism?: number;
  lag?: number;
  createdAt?: number;
  updatedAt?: number;
  /** Upsert requests processed. */
  upserts?: number;
}

/** A schedule, by its id; routes/schedules.ts keeps the rest of its record. */
export interface Schedule {
  /** A URL or a URL group's name: a group a schedule publishes to cannot be deleted. */
  destination: string;
  paused: boolean;
  cron?: string;
  createdAt?: number;
  method?: string;
  /** Forwarded headers (and the body's content type): name -> values. */
  header?: Record<string, string[]>;
  body?: string;
  retries?: number;
  retryDelayExpression?: string;
  /** Seconds. */
  delay?: number;
  timeout?: number;
  callback?: string;
  failureCallback?: string;
  flowControlKey?: string;
  parallelism?: number;
  rate?: number;
  period?: number;
  labels?: string[];
  lastScheduleTime?: number;
  /** Create requests processed for this id (a resend replaces in place). */
  creates?: number;
}

/** A URL group (the API's topic), by its name. */
export interface Topic {
  endpoints: { url: string; name?: string }[];
  createdAt: number;
  updatedAt: number;
}

/** The account's signing keys: receivers verify message signatures with either. */
export interface SigningKeys {
  current: string;
  next: string;
}

export interface Account {
  owner: string;
  record: MessagingAccountRecord;
  keys: Record<string, FlowKey>;
  queues: Record<string, Queue>;
  schedules: Record<string, Schedule>;
  topics: Record<string, Topic>;
  signingKeys: SigningKeys;
}

export interface Index {
  owner: string;
  record: SearchIndexRecord;
}

/** A database: only its budget is managed here (contract), the rest is read-only. */
export interface Database {
  owner: string;
  record: DatabaseRecord;
}

export interface Data {
  users: User[];
  indexes: Index[];
  accounts: Account[];
  databases: Database[];
  /** The port the emulator last listened on: started again on this data with port 0, it takes it back if free. */
  port?: number;
}

const secret = (prefix: string) => `${prefix}_${randomBytes(18).toString("base64url")}`;
const now = () => Math.floor(Date.now() / 1000);

/** Limits per plan, as a real free or pay-as-you-go index would carry them. */
const INDEX_LIMITS: Record<Exclude<SearchType, "fixed">, Partial<SearchIndexRecord>> = {
  free: {
    max_vector_count: 10_000,
    max_monthly_reranks: 0,
    max_daily_updates: 10_000,
    max_daily_queries: 10_000,
    max_monthly_bandwidth: 10_000_000_000,
    max_writes_per_second: 1_000,
    max_query_per_second: 1_000,
    max_reads_per_request: 1_000,
    max_writes_per_request: 1_000,
  },
  payg: {
    max_vector_count: 200_000_000,
    max_monthly_reranks: -1,
    max_daily_updates: -1,
    max_daily_queries: -1,
    max_monthly_bandwidth: -1,
    max_writes_per_second: 1_000,
    max_query_per_second: 1_000,
    max_reads_per_request: 1_000,
    max_writes_per_request: 1_000,
  },
};

/** Moves an index to another plan: same id, name, endpoint and tokens; the plan's limits. */
export function setIndexPlan(record: SearchIndexRecord, type: "free" | "payg"): void {
  Object.assign(record, INDEX_LIMITS[type], { type, input_enrichment_enabled: type === "payg" });
}

/** New `token` and `read_only_token` for an index (reset-password); id, name and endpoint stay. */
export function resetIndexTokens(record: SearchIndexRecord): void {
  record.token = secret("idx");
  record.read_only_token = secret("idxro");
}

export function newIndexRecord(
  user: User,
  name: string,
  region: SearchRegion,
  type: "free" | "payg",
): SearchIndexRecord {
  const id = randomUUID();
  const host = `${name.toLowerCase().replace(/_/g, "-")}-${id.slice(0, 8)}`;
  return {
    customer_id: user.customerId,
    id,
    name,
    endpoint: `https://${host}-${region}.search.emulator.local`,
    type,
    region,
    integration_email: "",
    token: secret("idx"),
    read_only_token: secret("idxro"),
    ...INDEX_LIMITS[type],
    creation_time: now(),
    input_enrichment_enabled: type === "payg",
    throughput_vector: [],
  } as SearchIndexRecord;
}

/** What every messaging plan shares; each plan below overrides some of it. */
const ACCOUNT_BASE_LIMITS = {
  max_message_size: 1_048_576,
  max_endpoints_per_topic: 100,
  max_dlq_size: 10_000,
  max_topics: 1_000,
  max_events_size: 10_000,
  max_dlq_retention_time_milis: 604_800_000,
  max_delay: 604_800,
  max_parallelism: 100,
  max_global_parallelism: 1_000,
  max_queues: 100,
  max_bandwidth_per_second: 10_485_760,
} satisfies Partial<MessagingAccountRecord>;

/**
 * Limits (and the reserved price) of each messaging plan. `free` and `paid` are what accounts are
 * seeded with; the fixed tiers (a daily message allowance for a monthly price) are what set-plan
 * moves an account to. Plausible figures, not the real service's.
 */
export const ACCOUNT_PLAN_LIMITS: Record<"free" | MessagingPlan, Partial<MessagingAccountRecord>> = {
  free: {
    ...ACCOUNT_BASE_LIMITS,
    max_requests_per_day: 500,
    max_requests_per_day_hard: 1_000,
    max_requests_per_second: 10,
    max_retries: 3,
    max_schedules: 10,
    reserved_price: 0,
  },
  paid: {
    ...ACCOUNT_BASE_LIMITS,
    max_requests_per_day: 1_000_000,
    max_requests_per_day_hard: 10_000_000,
    max_requests_per_second: 500,
    max_retries: 20,
    max_schedules: 1_000,
    reserved_price: 0,
  },
  fixed_1m: {
    ...ACCOUNT_BASE_LIMITS,
    max_requests_per_day: 1_000_000,
    max_requests_per_day_hard: 1_000_000,
    max_requests_per_second: 100,
    max_retries: 20,
    max_schedules: 1_000,
    max_queues: 200,
    max_global_parallelism: 200,
    reserved_price: 180,
  },
  fixed_10m: {
    ...ACCOUNT_BASE_LIMITS,
    max_requests_per_day: 10_000_000,
    max_requests_per_day_hard: 10_000_000,
    max_requests_per_second: 1_000,
    max_retries: 20,
    max_schedules: 5_000,
    max_queues: 1_000,
    max_parallelism: 500,
    max_global_parallelism: 2_000,
    max_bandwidth_per_second: 52_428_800,
    reserved_price: 420,
  },
  fixed_100m: {
    ...ACCOUNT_BASE_LIMITS,
    max_requests_per_day: 100_000_000,
    max_requests_per_day_hard: 100_000_000,
    max_requests_per_second: 5_000,
    max_retries: 20,
    max_schedules: 10_000,
    max_queues: 10_000,
    max_parallelism: 1_000,
    max_global_parallelism: 10_000,
    max_bandwidth_per_second: 104_857_600,
    reserved_price: 1_250,
  },
};

/** The plan an account is on: `free`, `paid`, or the fixed tier its `reserved_type` names. */
export function accountPlan(record: MessagingAccountRecord): "free" | MessagingPlan | undefined {
  if (record.type !== "paid") return "free";
  if (!record.reserved_type) return "paid";
  const tier = record.reserved_type.replace(/^messaging_/, "");
  return tier in ACCOUNT_PLAN_LIMITS ? (tier as MessagingPlan) : undefined;
}

/**
 * Moves an account to a paid plan (set-plan): `type: "paid"`, `reserved_type` the fixed tier's
 * wire name (empty for `paid`), the plan's limits. The current plan again changes nothing.
 */
export function setAccountPlan(record: MessagingAccountRecord, plan: MessagingPlan, wireName: string): boolean {
  if (accountPlan(record) === plan) return false;
  Object.assign(record, ACCOUNT_PLAN_LIMITS[plan], {
    type: "paid",
    reserved_type: plan === "paid" ? "" : wireName,
    last_plan_upgrade_time: now(),
  });
  return true;
}

/** New `token` and `read_only_token` for an account (rotate-token): the old ones stop working at once. */
export function rotateAccountTokens(record: MessagingAccountRecord): void {
  record.token = secret("msg");
  record.read_only_token = secret("msgro");
}

/** A fresh pair of signing keys for a new account. */
export const newSigningKeys = (): SigningKeys => ({ current: secret("sig"), next: secret("sig") });

/** One step of rotation: the old `next` becomes `current`, and a fresh `next` is made. */
export function rotateSigningKeys(keys: SigningKeys): void {
  keys.current = keys.next;
  keys.next = secret("sig");
}

export function newAccount(user: User, region: MessagingRegion, paid: boolean): Account {
  return {
    owner: user.username,
    keys: {},
    queues: {},
    schedules: {},
    topics: {},
    signingKeys: newSigningKeys(),
    record: {
      customer_id: user.customerId,
      id: randomUUID(),
      token: secret("msg"),
      read_only_token: secret("msgro"),
      active: true,
      state: "active",
      last_plan_upgrade_time: paid ? now() : 0,
      ...ACCOUNT_PLAN_LIMITS[paid ? "paid" : "free"],
      prod_pack_enabled: false,
      prometheus_enabled: "false",
      timeout: 900,
      type: paid ? "paid" : "free",
      region,
      reserved_type: "",
      created_by: `${user.username}@emulator.local`,
      creation_time: now(),
      deletion_time: 0,
      budget: 0,
    } as MessagingAccountRecord,
  };
}

/** A database as the budget endpoints report it; databases themselves are not managed here (contract). */
export function newDatabase(user: User, name: string, region: string): Database {
  const id = randomUUID();
  return {
    owner: user.username,
    record: {
      database_id: id,
      database_name: name,
      // Contract: a database's region is always "global"; where it runs is primary_region.
      region: "global",
      primary_region: region,
      read_regions: [],
      state: "active",
      budget: 0,
      customer_id: user.customerId,
      type: "paid",
      endpoint: `${name}-${id.slice(0, 8)}.db.emulator.local`,
      port: 6379,
      tls: true,
      creation_time: now(),
    },
  };
}

/** Each user's two seeded databases. */
export function seedDatabases(user: User): Database[] {
  return [
    newDatabase(user, `${user.username}-cache`, "eu-west-1"),
    newDatabase(user, `${user.username}-sessions`, "us-east-1"),
  ];
}

export const SEED_USERS = ["alice", "bob"] as const;

/** Two users, each with a free and a paid messaging account in every messaging region and two databases. */
export function seedData(): Data {
  const users: User[] = SEED_USERS.map((username) => ({
    username,
    password: secret(`${username}-pw`),
    customerId: `${username}@emulator.local`,
  }));
  const accounts = users.flatMap((u) =>
    MESSAGING_REGIONS.flatMap((region) => [newAccount(u, region, false), newAccount(u, region, true)]),
  );
  return { users, indexes: [], accounts, databases: users.flatMap(seedDatabases) };
}

/** The data a `--data` file holds; undefined when there is no file yet (a fresh start writes one). */
export function loadData(file: string): Data | undefined {
  let data: Data;
  try {
    data = JSON.parse(readFileSync(file, "utf8")) as Data;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read emulator data file ${file}: ${(err as Error).message}`);
  }
  // A file of an emulator older than the database budgets: not filled in, which would hide that it is stale.
  if (!Array.isArray(data.databases))
    throw new Error(
      `emulator data file ${file} has no databases (an older emulator wrote it): delete it, or give another --data file`,
    );
  // Accounts of an emulator older than schedules, URL groups and signing keys have none yet.
  for (const account of data.accounts ?? []) {
    account.schedules ??= {};
    account.topics ??= {};
    account.signingKeys ??= newSigningKeys();
  }
  return data;
}

/** Write-then-rename, so a crash mid-write never leaves a torn file behind. */
export function saveData(file: string, data: Data): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data, null, 1));
  renameSync(tmp, file);
}
