/**
 * The emulator's data: users, their search indexes and messaging accounts, and the flow control
 * keys and queues of each account. Records are stored in their wire shape (provider/api/schemas).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { MessagingAccountRecord, MessagingRegion, SearchIndexRecord, SearchRegion, SearchType } from "../provider/api/schemas";
import { MESSAGING_REGIONS } from "../provider/api/schemas";

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

export interface Account {
  owner: string;
  record: MessagingAccountRecord;
  keys: Record<string, FlowKey>;
  queues: Record<string, Queue>;
}

export interface Index {
  owner: string;
  record: SearchIndexRecord;
}

export interface Data {
  users: User[];
  indexes: Index[];
  accounts: Account[];
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

export function newIndexRecord(user: User, name: string, region: SearchRegion, type: "free" | "payg"): SearchIndexRecord {
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

export function newAccount(user: User, region: MessagingRegion, paid: boolean): Account {
  return {
    owner: user.username,
    keys: {},
    queues: {},
    record: {
      customer_id: user.customerId,
      id: randomUUID(),
      token: secret("msg"),
      read_only_token: secret("msgro"),
      active: true,
      state: "active",
      last_plan_upgrade_time: paid ? now() : 0,
      max_message_size: 1_048_576,
      max_requests_per_day: paid ? 1_000_000 : 500,
      max_requests_per_day_hard: paid ? 10_000_000 : 1_000,
      max_endpoints_per_topic: 100,
      max_requests_per_second: paid ? 500 : 10,
      max_dlq_size: 10_000,
      max_retries: paid ? 20 : 3,
      max_topics: 1_000,
      max_schedules: paid ? 1_000 : 10,
      max_events_size: 10_000,
      max_dlq_retention_time_milis: 604_800_000,
      max_delay: 604_800,
      max_parallelism: 100,
      max_global_parallelism: 1_000,
      max_queues: 100,
      max_bandwidth_per_second: 10_485_760,
      prod_pack_enabled: false,
      prometheus_enabled: "false",
      timeout: 900,
      type: paid ? "paid" : "free",
      region,
      reserved_type: "",
      reserved_price: 0,
      created_by: `${user.username}@emulator.local`,
      creation_time: now(),
      deletion_time: 0,
      budget: 0,
    },
  };
}

export const SEED_USERS = ["alice", "bob"] as const;

/** Two users, each with a free and a paid messaging account in every messaging region. */
export function seedData(): Data {
  const users: User[] = SEED_USERS.map((username) => ({
    username,
    password: secret(`${username}-pw`),
    customerId: `${username}@emulator.local`,
  }));
  const accounts = users.flatMap((u) => MESSAGING_REGIONS.flatMap((region) => [newAccount(u, region, false), newAccount(u, region, true)]));
  return { users, indexes: [], accounts };
}

export function loadData(file: string): Data | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Data;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read emulator data file ${file}: ${(err as Error).message}`);
  }
}

/** Write-then-rename, so a crash mid-write never leaves a torn file behind. */
export function saveData(file: string, data: Data): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data, null, 1));
  renameSync(tmp, file);
}
