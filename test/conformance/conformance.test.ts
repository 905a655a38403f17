/**
 * Conformance: the service (the emulator in `npm test`, any service in `npm run conformance`)
 * against management-api.md and contract.md only. Plain fetch and literal fixtures, written from
 * the two documents: nothing here comes from provider/ or emulator/, so a field name or status
 * code that is wrong on both sides of this repository still fails here.
 */
import { conformanceTarget, planOf, type Target } from "./target";

/** What this run may do is known before the target starts: skipped tests say so in the report. */
const plan = planOf(process.env);
const writesOnly = plan.writes ? test : test.skip;
const withKey = plan.key ? test : test.skip;
const writesWithKey = plan.writes && plan.key ? test : test.skip;
/** Plan upgrades (no way back), the production pack and token rotation on the user's own accounts. */
const accountChanges = plan.accountChanges ? test : test.skip;

/** Spec 2.1, field by field. */
const SEARCH_INDEX_FIELDS: Record<string, "string" | "integer" | "boolean" | "array"> = {
  customer_id: "string",
  id: "string",
  name: "string",
  endpoint: "string",
  type: "string",
  region: "string",
  integration_email: "string",
  token: "string",
  read_only_token: "string",
  max_vector_count: "integer",
  max_monthly_reranks: "integer",
  max_daily_updates: "integer",
  max_daily_queries: "integer",
  max_monthly_bandwidth: "integer",
  max_writes_per_second: "integer",
  max_query_per_second: "integer",
  max_reads_per_request: "integer",
  max_writes_per_request: "integer",
  creation_time: "integer",
  input_enrichment_enabled: "boolean",
  throughput_vector: "array",
};

/** Spec 2.2; `modifying_state`, `reserved_type` and `enterprise` may be absent. */
const ACCOUNT_FIELDS: Record<string, "string" | "integer" | "boolean" | "number"> = {
  customer_id: "string",
  id: "string",
  token: "string",
  read_only_token: "string",
  active: "boolean",
  state: "string",
  last_plan_upgrade_time: "integer",
  max_message_size: "integer",
  max_requests_per_day: "integer",
  max_requests_per_day_hard: "integer",
  max_endpoints_per_topic: "integer",
  max_requests_per_second: "integer",
  max_dlq_size: "integer",
  max_retries: "integer",
  max_topics: "integer",
  max_schedules: "integer",
  max_events_size: "integer",
  max_dlq_retention_time_milis: "integer",
  max_delay: "integer",
  max_parallelism: "integer",
  max_global_parallelism: "integer",
  max_queues: "integer",
  max_bandwidth_per_second: "integer",
  prod_pack_enabled: "boolean",
  prometheus_enabled: "string",
  timeout: "integer",
  type: "string",
  region: "string",
  reserved_price: "number",
  created_by: "string",
  creation_time: "integer",
  deletion_time: "integer",
  budget: "integer",
};

/** Contract "The rest of the named operations": the totals over all of a user's indexes. */
const SEARCH_TOTALS_FIELDS: Record<string, "integer" | "number"> = {
  record_count: "integer",
  request: "integer",
  bandwidth: "integer",
  storage: "integer",
  rerank_count: "integer",
  billing: "number",
};

/** Contract "The rest of the named operations": a database as the budget endpoints show it. */
const DATABASE_FIELDS: Record<string, "string" | "integer"> = {
  database_id: "string",
  database_name: "string",
  region: "string",
  primary_region: "string",
  state: "string",
  budget: "integer",
};

/** Contract "Queues": the record of get and list. */
const QUEUE_FIELDS: Record<string, "string" | "integer" | "boolean"> = {
  name: "string",
  parallelism: "integer",
  lag: "integer",
  paused: "boolean",
  createdAt: "integer",
  updatedAt: "integer",
};

const STATS_PERIODS = ["1h", "3h", "12h", "1d", "3d", "7d", "30d"];

let t: Target;
beforeAll(async () => {
  t = await conformanceTarget();
});
afterAll(() => t?.stop());

const basic = (u: { username: string; password: string }) =>
  `Basic ${Buffer.from(`${u.username}:${u.password}`).toString("base64")}`;

interface Answer {
  status: number;
  body: unknown;
  contentType: string | null;
}

async function call(
  method: string,
  url: string,
  authorization: string | undefined,
  body?: unknown,
  jsonHeaderAlways = false,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (authorization) headers.authorization = authorization;
  if (body !== undefined || jsonHeaderAlways) headers["content-type"] = "application/json";
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text, and the checks below say so
  }
  return { status: res.status, body: parsed, contentType: res.headers.get("content-type") };
}

const mgmt = (method: string, p: string, body?: unknown, user = t.user) =>
  call(method, `${t.baseUrl}${p}`, basic(user), body);
const messaging = (method: string, p: string, token = t.messaging!.token) =>
  call(method, `${t.messagingUrl}${p}`, `Bearer ${token}`);
const regional = (method: string, p: string, region = t.messaging!.region, token = t.messaging!.token) =>
  call(method, `${t.regionalMessagingUrl.replace("{region}", region)}${p}`, `Bearer ${token}`);

function typeOf(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** Every documented field present with its documented type. */
function expectFields(record: unknown, fields: Record<string, string>): void {
  expect(typeOf(record)).toBe("object");
  const problems: string[] = [];
  for (const [name, type] of Object.entries(fields)) {
    const actual = typeOf((record as Record<string, unknown>)[name]);
    const ok = actual === type || (type === "number" && actual === "integer");
    if (!ok) problems.push(`${name}: expected ${type}, got ${actual}`);
  }
  expect(problems).toEqual([]);
}

function expectError(a: Answer, status: number, text?: RegExp): void {
  expect(a.status).toBe(status);
  // Spec 2.4: {"error": "..."}; the contract also allows a bare JSON string.
  const message = typeof a.body === "string" ? a.body : (a.body as { error?: unknown })?.error;
  expect(typeof message).toBe("string");
  if (text) expect(message).toMatch(text);
}

const expectOk = (a: Answer) => {
  expect(a.status).toBe(200);
  expect(a.body).toBe("OK"); // the JSON string "OK" (contract)
};

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`;

describe("search indexes (endpoints 1-3; assumed rename, set-plan, delete)", () => {
  test("GET /v2/search: 200, an array of records with every documented field", async () => {
    const a = await mgmt("GET", "/v2/search");
    expect(a.status).toBe(200);
    expect(Array.isArray(a.body)).toBe(true);
    for (const record of a.body as unknown[]) expectFields(record, SEARCH_INDEX_FIELDS);
  });

  test("no or wrong credentials: 401 with an error body", async () => {
    expectError(await call("GET", `${t.baseUrl}/v2/search`, undefined), 401);
    expectError(await mgmt("GET", "/v2/search", undefined, { username: t.user.username, password: "wrong" }), 401);
  });

  test("GET /v2/search/{unknown}: 404 '... not found'", async () => {
    expectError(await mgmt("GET", "/v2/search/no-such-index-id"), 404, /not found/);
  });

  writesOnly(
    "create, get, list, rename, set-plan and delete: methods, paths, statuses and bodies as documented",
    async () => {
      const name = unique("conf");
      const created = await mgmt("POST", "/v2/search", { name, region: "eu-west-1", type: "free" });
      expect(created.status).toBe(200);
      expect(created.contentType).toMatch(/application\/json/);
      expectFields(created.body, SEARCH_INDEX_FIELDS);
      const record = created.body as Record<string, unknown>;
      expect(record).toMatchObject({ name, type: "free" });
      expect(["eu-west-1", "us-central1"]).toContain(record.region);
      const id = record.id as string;

      const got = await mgmt("GET", `/v2/search/${id}`);
      expect(got.status).toBe(200);
      expectFields(got.body, SEARCH_INDEX_FIELDS);
      for (const point of (got.body as { throughput_vector: unknown[] }).throughput_vector) {
        expect(point).toEqual({
          x: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \+0000 UTC$/),
          y: expect.any(Number),
        });
      }
      const listed = await mgmt("GET", "/v2/search");
      expect((listed.body as { id: string }[]).filter((i) => i.id === id)).toHaveLength(1);

      expectError(await mgmt("POST", "/v2/search", { name, region: "eu-west-1", type: "free" }), 409);

      const renamed = unique("conf-renamed");
      expectOk(await mgmt("POST", `/v2/search/${id}/rename`, { name: renamed }));
      expect(((await mgmt("GET", `/v2/search/${id}`)).body as { name: string }).name).toBe(renamed);

      expectOk(await mgmt("POST", `/v2/search/${id}/setplan`, { target_plan: "payg" }));
      const paid = (await mgmt("GET", `/v2/search/${id}`)).body as Record<string, unknown>;
      expect(["payg", "paid"]).toContain(paid.type); // "paid" is the service's other spelling
      expect(paid.token).toBe(record.token);
      expectError(
        await mgmt("POST", `/v2/search/${id}/setplan`, { target_plan: "fixed" }),
        400,
        /fixed plan is not available/,
      );

      if (t.otherUser) {
        // Another user's index: 404, never a hint that it exists.
        expectError(await mgmt("GET", `/v2/search/${id}`, undefined, t.otherUser), 404, /not found/);
        expectError(await mgmt("DELETE", `/v2/search/${id}`, undefined, t.otherUser), 404, /not found/);
        expect(
          ((await mgmt("GET", "/v2/search", undefined, t.otherUser)).body as { id: string }[]).some((i) => i.id === id),
        ).toBe(false);
      }

      expectOk(await mgmt("DELETE", `/v2/search/${id}`));
      expectError(await mgmt("GET", `/v2/search/${id}`), 404, /not found/);
      expectError(await mgmt("DELETE", `/v2/search/${id}`), 404);
    },
  );

  writesOnly(
    "bodiless POST and DELETE carrying Content-Type: application/json, as real clients send them, are taken like any other",
    async () => {
      const created = await mgmt("POST", "/v2/search", { name: unique("conf-ct"), region: "eu-west-1", type: "free" });
      const id = (created.body as { id: string }).id;
      expectOk(await call("DELETE", `${t.baseUrl}/v2/search/${id}`, basic(t.user), undefined, true));
      expectError(await mgmt("GET", `/v2/search/${id}`), 404);
      if (t.key && t.messaging) {
        const key = encodeURIComponent(t.key);
        expectOk(
          await call(
            "POST",
            `${t.regionalMessagingUrl.replace("{region}", t.messaging.region)}/v2/flowControl/${key}/resetRate`,
            `Bearer ${t.messaging.token}`,
            undefined,
            true,
          ),
        );
      }
    },
  );

  writesOnly("create refuses bad input with 400 naming the field, and 'fixed' with its own message", async () => {
    expectError(
      await mgmt("POST", "/v2/search", { name: unique("conf"), region: "eu-west-1", type: "fixed" }),
      400,
      /fixed plan is not available/,
    );
    expectError(
      await mgmt("POST", "/v2/search", { name: unique("conf"), region: "mars-1", type: "free" }),
      400,
      /region/,
    );
    expectError(await mgmt("POST", "/v2/search", { name: unique("conf"), region: "eu-west-1" }), 400, /type/);
    expectError(await mgmt("POST", "/v2/search", { name: "bad/name", region: "eu-west-1", type: "free" }), 400, /name/);
    expectError(await call("POST", `${t.baseUrl}/v2/search`, basic(t.user), undefined), 400);
  });
});

describe("messaging accounts (endpoints 4, 5)", () => {
  test("GET /v2/messaging/users: 200, an array of records with every documented field", async () => {
    const a = await mgmt("GET", "/v2/messaging/users");
    expect(a.status).toBe(200);
    expect(Array.isArray(a.body)).toBe(true);
    for (const record of a.body as unknown[]) {
      expectFields(record, ACCOUNT_FIELDS);
      expect(["true", "false"]).toContain((record as { prometheus_enabled: string }).prometheus_enabled);
    }
  });

  writesOnly(
    'PATCH /v2/messaging/update-budget/{id}: 200 "OK" for 0, 20 and 10000; 400 outside; 404 unknown or another user\'s',
    async () => {
      const [account] = (await mgmt("GET", "/v2/messaging/users")).body as { id: string; budget: number }[];
      const before = account.budget;
      for (const budget of [20, 10000, 0])
        expectOk(await mgmt("PATCH", `/v2/messaging/update-budget/${account.id}`, { budget }));
      for (const budget of [10, -1, 10001, 20.5, "20"])
        expectError(await mgmt("PATCH", `/v2/messaging/update-budget/${account.id}`, { budget }), 400, /budget/);
      expectError(await mgmt("PATCH", "/v2/messaging/update-budget/no-such-account", { budget: 20 }), 404);
      if (t.otherUser)
        expectError(await mgmt("PATCH", `/v2/messaging/update-budget/${account.id}`, { budget: 20 }, t.otherUser), 404);
      expectOk(await mgmt("PATCH", `/v2/messaging/update-budget/${account.id}`, { budget: before }));
    },
  );
});

describe("flow control keys and queues (endpoints 6-9; assumed lift of a pause)", () => {
  test("GET {messaging_url}/v2/flowControl/{unknown}: 404; a wrong token: 401", async () => {
    if (!t.messaging) return;
    expectError(await messaging("GET", "/v2/flowControl/no-such-key-here"), 404);
    expectError(await messaging("GET", "/v2/flowControl/no-such-key-here", "not-a-token"), 401);
  });

  withKey("GET {messaging_url}/v2/flowControl/{key}: 200 with flowControlKey and waitListSize", async () => {
    const a = await messaging("GET", `/v2/flowControl/${encodeURIComponent(t.key!)}`);
    expect(a.status).toBe(200);
    const body = a.body as Record<string, unknown>;
    expect(body.flowControlKey).toBe(t.key);
    expect(typeOf(body.waitListSize ?? body.waitlistSize)).toBe("integer");
  });

  writesWithKey(
    "pinning a key that never carried a message creates it with the pinned values; pause of an unknown key is still 404",
    async () => {
      const key = unique("conf-new-key");
      expectError(await regional("POST", `/v2/flowControl/${key}/pause`), 404);
      expectOk(await regional("POST", `/v2/flowControl/${key}/pin?parallelism=3`));
      const read = await messaging("GET", `/v2/flowControl/${key}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ flowControlKey: key, waitListSize: 0 });
      expectOk(await regional("POST", `/v2/flowControl/${key}/pause`));
    },
  );

  writesWithKey(
    'resetRate, pause and resume of a key, resume of a queue: POST without a body, 200 "OK"; 404 unknown; 401 in another region',
    async () => {
      const key = encodeURIComponent(t.key!);
      expectOk(await regional("POST", `/v2/flowControl/${key}/resetRate`));
      expectOk(await regional("POST", `/v2/flowControl/${key}/pause`));
      expectOk(await regional("POST", `/v2/flowControl/${key}/pause`)); // pausing a paused key succeeds
      expectOk(await regional("POST", `/v2/flowControl/${key}/resume`));
      expectError(await regional("POST", "/v2/flowControl/no-such-key-here/resetRate"), 404);
      expectError(await regional("POST", "/v2/flowControl/no-such-key-here/pause"), 404);
      if (t.queue) {
        expectOk(await regional("POST", `/v2/queues/${encodeURIComponent(t.queue)}/resume`));
        expectOk(await regional("POST", `/v2/queues/${encodeURIComponent(t.queue)}/resume`)); // resuming a running queue succeeds
      }
      expectError(await regional("POST", "/v2/queues/no-such-queue-here/resume"), 404);
      if (t.messaging!.otherRegion)
        expectError(
          await regional("POST", `/v2/flowControl/${key}/pause`, t.messaging!.otherRegion),
          401,
          /user not found in this region/,
        );
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Contract "The rest of the named operations" and "Flow control keys before their first message".

/** A bodiless request that still carries `Content-Type: application/json`, as real clients send it. */
const bodiless = (method: string, p: string, user = t.user) =>
  call(method, `${t.baseUrl}${p}`, basic(user), undefined, true);

interface AccountRecord {
  id: string;
  token: string;
  read_only_token: string;
  type: string;
  reserved_type?: string;
  prod_pack_enabled: boolean;
  deletion_time: number;
  [field: string]: unknown;
}

async function liveAccounts(): Promise<AccountRecord[]> {
  const a = await mgmt("GET", "/v2/messaging/users");
  expect(a.status).toBe(200);
  return (a.body as AccountRecord[]).filter((r) => !r.deletion_time);
}

/** An account other than the one whose token the messaging tests use, when the user has one. */
async function spareAccount(prefer: (a: AccountRecord) => boolean = () => true): Promise<AccountRecord> {
  const accounts = await liveAccounts();
  expect(accounts.length).toBeGreaterThan(0);
  const spare = accounts.filter((a) => a.token !== t.messaging?.token);
  return spare.find(prefer) ?? spare[0] ?? accounts[0];
}

const getAccount = async (id: string) => {
  const a = await mgmt("GET", `/v2/messaging/user/${id}`);
  expect(a.status).toBe(200);
  return a.body as AccountRecord;
};

/** The record's limits: the fields beginning with `max_` (spec 2.2). */
const limitsOf = (r: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(r).filter(([k]) => k.startsWith("max_")));

/** What each listed statistics field is (contract "Shapes of those reads"); unlisted fields may come. */
type StatsShape = "number" | "strings" | "numbers" | "points" | "series";
const INDEX_STATS_FIELDS: Record<string, StatsShape> = {
  pending_index_count: "number",
  current_vector_count: "number",
  vector_count: "number",
  data_size: "number",
  storage_usage: "number",
  daily_query_count: "number",
  daily_update_count: "number",
  monthly_query_count: "number",
  monthly_update_count: "number",
  monthly_bandwidth_usage: "number",
  monthly_cost: "number",
  daily_rerank_count: "number",
  monthly_rerank_count: "number",
  days: "strings",
  daily_query_requests: "numbers",
  daily_update_requests: "numbers",
  daily_bandwidths: "numbers",
  daily_rerank_requests: "numbers",
  query_throughput: "points",
  update_throughput: "points",
};
const ACCOUNT_STATS_FIELDS: Record<string, StatsShape> = {
  days: "strings",
  daily_requests: "series",
  daily_billings: "series",
  daily_bandwidths: "series",
  daily_used: "series",
  daily_messaging_messages: "series",
  dlq_message_count: "number",
  daily_bandwidth_used: "number",
  total_monthly_billing: "number",
};

const isPoint = (p: unknown) =>
  typeOf(p) === "object" && (p as { x?: unknown }).x !== undefined && typeof (p as { y?: unknown }).y === "number";
const SHAPE_OK: Record<StatsShape, (v: unknown) => boolean> = {
  number: (v) => typeof v === "number",
  strings: (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
  numbers: (v) => Array.isArray(v) && v.every((x) => typeof x === "number"),
  points: (v) => Array.isArray(v) && v.every(isPoint),
  // "series" without a shape: numbers, or {x, y} points.
  series: (v) => Array.isArray(v) && v.every((x) => typeof x === "number" || isPoint(x)),
};

/** Statistics: every field the contract lists, each of its shape (fields are optional on read, but these are the ones a user reads). */
function expectStats(body: unknown, fields: Record<string, StatsShape>): void {
  expect(typeOf(body)).toBe("object");
  const record = body as Record<string, unknown>;
  const problems = Object.entries(fields)
    .filter(([name, shape]) => !SHAPE_OK[shape](record[name]))
    .map(([name, shape]) => `${name}: expected ${shape}, got ${JSON.stringify(record[name])?.slice(0, 60)}`);
  expect(problems).toEqual([]);
}
const expectIndexStats = (body: unknown) => expectStats(body, INDEX_STATS_FIELDS);

describe("search indexes: the assumed token reset and statistics", () => {
  test("GET /v2/search/stats: 200, the user's totals (integers and a number for billing), not a search for an index with the id 'stats'", async () => {
    const a = await mgmt("GET", "/v2/search/stats");
    expect(a.status).toBe(200);
    expectFields(a.body, SEARCH_TOTALS_FIELDS);
    expect(Array.isArray(a.body)).toBe(false);
    expectError(await call("GET", `${t.baseUrl}/v2/search/stats`, undefined), 401);
    if (t.otherUser)
      expectFields((await mgmt("GET", "/v2/search/stats", undefined, t.otherUser)).body, SEARCH_TOTALS_FIELDS);
  });

  writesOnly(
    'POST /v2/search/{id}/reset-password (bodiless, with a JSON Content-Type): 200 "OK"; both tokens change, id, name and endpoint stay; 404 unknown or another user\'s',
    async () => {
      const created = await mgmt("POST", "/v2/search", {
        name: unique("conf-tokens"),
        region: "eu-west-1",
        type: "free",
      });
      expect(created.status).toBe(200);
      const before = created.body as Record<string, unknown>;
      const id = before.id as string;
      try {
        expectOk(await bodiless("POST", `/v2/search/${id}/reset-password`));
        const after = (await mgmt("GET", `/v2/search/${id}`)).body as Record<string, unknown>;
        expectFields(after, SEARCH_INDEX_FIELDS);
        expect({ id: after.id, name: after.name, endpoint: after.endpoint }).toEqual({
          id: before.id,
          name: before.name,
          endpoint: before.endpoint,
        });
        expect(after.token).not.toBe(before.token);
        expect(after.read_only_token).not.toBe(before.read_only_token);
        expect(after.token).not.toBe("");
        expect(after.read_only_token).not.toBe("");

        expectOk(await mgmt("POST", `/v2/search/${id}/reset-password`)); // again, without the header: new tokens again
        const again = (await mgmt("GET", `/v2/search/${id}`)).body as Record<string, unknown>;
        expect(again.token).not.toBe(after.token);

        expectError(await mgmt("POST", "/v2/search/no-such-index-id/reset-password"), 404, /not found/);
        if (t.otherUser) {
          expectError(await mgmt("POST", `/v2/search/${id}/reset-password`, undefined, t.otherUser), 404, /not found/);
          expect(((await mgmt("GET", `/v2/search/${id}`)).body as { token: string }).token).toBe(again.token);
        }
      } finally {
        await mgmt("DELETE", `/v2/search/${id}`);
      }
    },
  );

  writesOnly(
    "GET /v2/search/{id}/stats?period=P: 200, numbers and {x, y} series for every period and without one; 400 for another period; 404 unknown or another user's",
    async () => {
      const created = await mgmt("POST", "/v2/search", {
        name: unique("conf-stats"),
        region: "eu-west-1",
        type: "free",
      });
      const id = (created.body as { id: string }).id;
      try {
        for (const period of STATS_PERIODS) {
          const a = await mgmt("GET", `/v2/search/${id}/stats?period=${period}`);
          expect(a.status).toBe(200);
          expectIndexStats(a.body);
        }
        const unset = await mgmt("GET", `/v2/search/${id}/stats`); // default 1h
        expect(unset.status).toBe(200);
        expectIndexStats(unset.body);
        for (const period of ["2h", "1w", "", "1H"])
          expectError(await mgmt("GET", `/v2/search/${id}/stats?period=${period}`), 400, /period/);
        expectError(await mgmt("GET", "/v2/search/no-such-index-id/stats?period=1h"), 404, /not found/);
        if (t.otherUser)
          expectError(await mgmt("GET", `/v2/search/${id}/stats?period=1h`, undefined, t.otherUser), 404, /not found/);
        // The totals are still the totals while the user has indexes.
        expectFields((await mgmt("GET", "/v2/search/stats")).body, SEARCH_TOTALS_FIELDS);
      } finally {
        await mgmt("DELETE", `/v2/search/${id}`);
      }
    },
  );
});

describe("messaging accounts: the assumed get one, token rotation, plan, production pack, statistics and addresses", () => {
  test("GET /v2/messaging/user/{id}: 200, the account record as the list shows it; 404 unknown or another user's", async () => {
    const accounts = await liveAccounts();
    for (const listed of accounts) {
      const a = await mgmt("GET", `/v2/messaging/user/${listed.id}`);
      expect(a.status).toBe(200);
      expectFields(a.body, ACCOUNT_FIELDS);
      expect(a.body).toMatchObject({ id: listed.id, token: listed.token, region: listed.region, type: listed.type });
    }
    expectError(await mgmt("GET", "/v2/messaging/user/no-such-account"), 404, /not found/);
    if (t.otherUser && accounts[0])
      expectError(await mgmt("GET", `/v2/messaging/user/${accounts[0].id}`, undefined, t.otherUser), 404, /not found/);
  });

  test("GET /v2/messaging/ipv4: 200, a JSON array of IPv4 CIDR strings", async () => {
    const a = await mgmt("GET", "/v2/messaging/ipv4");
    expect(a.status).toBe(200);
    expect(Array.isArray(a.body)).toBe(true);
    const addresses = a.body as unknown[];
    expect(addresses.length).toBeGreaterThan(0);
    const cidr = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;
    for (const address of addresses) {
      expect(address).toEqual(expect.stringMatching(cidr));
      const [, a1, a2, a3, a4, bits] = cidr.exec(address as string)!.map(Number);
      expect(Math.max(a1, a2, a3, a4)).toBeLessThanOrEqual(255);
      expect(bits).toBeLessThanOrEqual(32);
    }
    expectError(await call("GET", `${t.baseUrl}/v2/messaging/ipv4`, undefined), 401);
  });

  test("GET /v2/messaging/stats/{id}?period=P: 200, a JSON object for every period and without one; 400 for another period; 404 unknown or another user's", async () => {
    const [account] = await liveAccounts();
    for (const period of STATS_PERIODS) {
      const a = await mgmt("GET", `/v2/messaging/stats/${account.id}?period=${period}`);
      expect(a.status).toBe(200);
      expectStats(a.body, ACCOUNT_STATS_FIELDS);
    }
    expectStats((await mgmt("GET", `/v2/messaging/stats/${account.id}`)).body, ACCOUNT_STATS_FIELDS);
    for (const period of ["2h", "1w", ""])
      expectError(await mgmt("GET", `/v2/messaging/stats/${account.id}?period=${period}`), 400, /period/);
    expectError(await mgmt("GET", "/v2/messaging/stats/no-such-account?period=1h"), 404, /not found/);
    if (t.otherUser)
      expectError(
        await mgmt("GET", `/v2/messaging/stats/${account.id}?period=1h`, undefined, t.otherUser),
        404,
        /not found/,
      );
  });

  accountChanges(
    "POST /v2/messaging/rotate-token/{id} (bodiless, with a JSON Content-Type): 200 the record with new tokens; the old token is refused (401) at once; 404 unknown or another user's",
    async () => {
      const before = await spareAccount();
      const rotated = await bodiless("POST", `/v2/messaging/rotate-token/${before.id}`);
      expect(rotated.status).toBe(200);
      expectFields(rotated.body, ACCOUNT_FIELDS);
      const after = rotated.body as AccountRecord;
      expect(after.id).toBe(before.id);
      expect(after.token).not.toBe(before.token);
      expect(after.read_only_token).not.toBe(before.read_only_token);
      if (t.messaging?.token === before.token) t.messaging.token = after.token; // the account the other tests use

      // Endpoint 6 with an unknown key: 401 for the old token, 404 (it got past authentication) for the new one.
      expectError(await messaging("GET", "/v2/flowControl/no-such-key-here", before.token), 401);
      expectError(await messaging("GET", "/v2/flowControl/no-such-key-here", after.token), 404);
      expect(await getAccount(before.id)).toMatchObject({ token: after.token, read_only_token: after.read_only_token });
      expect((await liveAccounts()).find((a) => a.id === before.id)!.token).toBe(after.token);

      expectError(await mgmt("POST", "/v2/messaging/rotate-token/no-such-account"), 404, /not found/);
      if (t.otherUser) {
        expectError(
          await mgmt("POST", `/v2/messaging/rotate-token/${before.id}`, undefined, t.otherUser),
          404,
          /not found/,
        );
        expect((await getAccount(before.id)).token).toBe(after.token);
      }
    },
  );

  accountChanges(
    "POST /v2/messaging/set-plan/{id}: 200 \"OK\"; type, reserved_type and max_* follow the plan; the same plan again changes nothing; 'free' and unknown plans 400; 404 unknown or another user's",
    async () => {
      const account = await spareAccount((a) => a.type === "free");
      const before = await getAccount(account.id);

      expectError(await mgmt("POST", `/v2/messaging/set-plan/${account.id}`, { plan_name: "gold" }), 400, /plan_name/);
      expectError(await mgmt("POST", `/v2/messaging/set-plan/${account.id}`, { plan_name: 1 }), 400, /plan_name/);
      expectError(await bodiless("POST", `/v2/messaging/set-plan/${account.id}`), 400);
      expect(await getAccount(account.id)).toMatchObject({ type: before.type, ...limitsOf(before) });

      expectOk(await mgmt("POST", `/v2/messaging/set-plan/${account.id}`, { plan_name: "paid" }));
      const paid = await getAccount(account.id);
      expectFields(paid, ACCOUNT_FIELDS);
      expect(paid.type).toBe("paid");
      expect(paid.reserved_type ?? "").toBe(""); // empty (or absent) for paid
      if (before.type === "free") expect(limitsOf(paid)).not.toEqual(limitsOf(before));
      expect(paid.token).toBe(before.token); // a plan change is not a token change

      expectOk(await mgmt("POST", `/v2/messaging/set-plan/${account.id}`, { plan_name: "paid" })); // the current plan again
      const same = await getAccount(account.id);
      expect({
        type: same.type,
        reserved_type: same.reserved_type ?? "",
        last_plan_upgrade_time: same.last_plan_upgrade_time,
        ...limitsOf(same),
      }).toEqual({
        type: paid.type,
        reserved_type: paid.reserved_type ?? "",
        last_plan_upgrade_time: paid.last_plan_upgrade_time,
        ...limitsOf(paid),
      });

      expectOk(await mgmt("POST", `/v2/messaging/set-plan/${account.id}`, { plan_name: "messaging_fixed_10m" }));
      const fixed = await getAccount(account.id);
      expect(fixed).toMatchObject({ type: "paid", reserved_type: "messaging_fixed_10m" });
      expect(limitsOf(fixed)).not.toEqual(limitsOf(paid));

      // No way back to free: refused, and the account stays on its plan.
      expectError(await mgmt("POST", `/v2/messaging/set-plan/${account.id}`, { plan_name: "free" }), 400, /plan_name/);
      expect(await getAccount(account.id)).toMatchObject({
        type: "paid",
        reserved_type: "messaging_fixed_10m",
        ...limitsOf(fixed),
      });

      expectError(
        await mgmt("POST", "/v2/messaging/set-plan/no-such-account", { plan_name: "paid" }),
        404,
        /not found/,
      );
      if (t.otherUser) {
        expectError(
          await mgmt("POST", `/v2/messaging/set-plan/${account.id}`, { plan_name: "messaging_fixed_1m" }, t.otherUser),
          404,
          /not found/,
        );
        expect((await getAccount(account.id)).reserved_type).toBe("messaging_fixed_10m");
      }
    },
  );

  accountChanges(
    'POST /v2/messaging/enable-prodpack/{id} and disable-prodpack/{id} (bodiless, with or without a JSON Content-Type): 200 "OK" each time, twice too; prod_pack_enabled follows; 404 unknown or another user\'s',
    async () => {
      const account = await spareAccount();
      const was = (await getAccount(account.id)).prod_pack_enabled;
      try {
        expectOk(await bodiless("POST", `/v2/messaging/enable-prodpack/${account.id}`));
        expectOk(await mgmt("POST", `/v2/messaging/enable-prodpack/${account.id}`));
        expect((await getAccount(account.id)).prod_pack_enabled).toBe(true);
        expectOk(await bodiless("POST", `/v2/messaging/disable-prodpack/${account.id}`));
        expectOk(await mgmt("POST", `/v2/messaging/disable-prodpack/${account.id}`));
        expect((await getAccount(account.id)).prod_pack_enabled).toBe(false);
        expectError(await mgmt("POST", "/v2/messaging/enable-prodpack/no-such-account"), 404, /not found/);
        expectError(await mgmt("POST", "/v2/messaging/disable-prodpack/no-such-account"), 404, /not found/);
        if (t.otherUser) {
          expectError(
            await mgmt("POST", `/v2/messaging/enable-prodpack/${account.id}`, undefined, t.otherUser),
            404,
            /not found/,
          );
          expect((await getAccount(account.id)).prod_pack_enabled).toBe(false);
        }
      } finally {
        await mgmt("POST", `/v2/messaging/${was ? "enable" : "disable"}-prodpack/${account.id}`);
      }
    },
  );
});

describe("databases (assumed budget operations)", () => {
  test("GET /v2/redis/databases and /v2/redis/database/{id}: 200 with database_id, database_name, region, state and budget; 404 unknown or another user's", async () => {
    const a = await mgmt("GET", "/v2/redis/databases");
    expect(a.status).toBe(200);
    expect(Array.isArray(a.body)).toBe(true);
    const databases = a.body as { database_id: string; region?: string }[];
    // The emulator seeds databases; a service's user may have none.
    if (t.kind === "emulator") expect(databases.length).toBeGreaterThan(0);
    for (const listed of databases) {
      expectFields(listed, DATABASE_FIELDS);
      // Contract: a database's region is always "global"; where it runs is primary_region.
      expect(listed.region).toBe("global");
      const got = await mgmt("GET", `/v2/redis/database/${listed.database_id}`);
      expect(got.status).toBe(200);
      expectFields(got.body, DATABASE_FIELDS);
      expect((got.body as { database_id: string }).database_id).toBe(listed.database_id);
    }
    expectError(await mgmt("GET", "/v2/redis/database/no-such-database"), 404, /not found/);
    if (t.otherUser && databases[0]) {
      expectError(
        await mgmt("GET", `/v2/redis/database/${databases[0].database_id}`, undefined, t.otherUser),
        404,
        /not found/,
      );
      const theirs = (await mgmt("GET", "/v2/redis/databases", undefined, t.otherUser)).body as {
        database_id: string;
      }[];
      expect(theirs.some((d) => d.database_id === databases[0].database_id)).toBe(false);
    }
  });

  writesOnly(
    'PATCH /v2/redis/update-budget/{id}: 200 "OK" for whole dollars 0 to 10000, read back; 400 outside; 404 unknown or another user\'s',
    async () => {
      const databases = (await mgmt("GET", "/v2/redis/databases")).body as { database_id: string; budget: number }[];
      if (t.kind === "emulator") expect(databases.length).toBeGreaterThan(0);
      if (databases.length === 0) return;
      const { database_id: id, budget: before } = databases[0];
      const budgetOf = async () => ((await mgmt("GET", `/v2/redis/database/${id}`)).body as { budget: number }).budget;
      try {
        for (const budget of [20, 10000, 10, 0]) {
          expectOk(await mgmt("PATCH", `/v2/redis/update-budget/${id}`, { budget }));
          expect(await budgetOf()).toBe(budget);
        }
        expectOk(await mgmt("PATCH", `/v2/redis/update-budget/${id}`, { budget: 50 }));
        for (const budget of [-1, 10001, 20.5, "20", null])
          expectError(await mgmt("PATCH", `/v2/redis/update-budget/${id}`, { budget }), 400, /budget/);
        expectError(await mgmt("PATCH", `/v2/redis/update-budget/${id}`, {}), 400, /budget/);
        expect(await budgetOf()).toBe(50); // refused changes change nothing
        expectError(await mgmt("PATCH", "/v2/redis/update-budget/no-such-database", { budget: 20 }), 404, /not found/);
        if (t.otherUser) {
          expectError(
            await mgmt("PATCH", `/v2/redis/update-budget/${id}`, { budget: 30 }, t.otherUser),
            404,
            /not found/,
          );
          expect(await budgetOf()).toBe(50);
        }
      } finally {
        await mgmt("PATCH", `/v2/redis/update-budget/${id}`, { budget: before });
      }
    },
  );
});

describe("flow control keys and queues: the assumed lists and queue records", () => {
  withKey(
    "GET {messaging_url}/v2/flowControl: 200, an array of records like endpoint 6's, the known key among them; 401 for a wrong token",
    async () => {
      const a = await messaging("GET", "/v2/flowControl");
      expect(a.status).toBe(200);
      expect(Array.isArray(a.body)).toBe(true);
      const keys = a.body as Record<string, unknown>[];
      for (const info of keys) {
        expect(typeOf(info.flowControlKey)).toBe("string");
        expect(typeOf(info.waitListSize ?? info.waitlistSize)).toBe("integer");
      }
      const listed = keys.find((k) => k.flowControlKey === t.key);
      expect(listed).toBeDefined();
      const single = (await messaging("GET", `/v2/flowControl/${encodeURIComponent(t.key!)}`)).body as Record<
        string,
        unknown
      >;
      expect(listed!.waitListSize ?? listed!.waitlistSize).toBe(single.waitListSize ?? single.waitlistSize);
      expectError(await messaging("GET", "/v2/flowControl", "not-a-token"), 401);
    },
  );

  writesWithKey("a key pinned before its first message is listed with waitListSize 0", async () => {
    const key = unique("conf-listed-key");
    expectOk(await regional("POST", `/v2/flowControl/${key}/pin?rate=5&period=60`));
    const keys = (await messaging("GET", "/v2/flowControl")).body as Record<string, unknown>[];
    expect(keys.find((k) => k.flowControlKey === key)).toMatchObject({ flowControlKey: key, waitListSize: 0 });
  });

  withKey(
    "GET {regional_messaging_url}/v2/queues/{queue} and /v2/queues: the queue record with name, parallelism, lag, paused, createdAt, updatedAt",
    async () => {
      if (!t.queue) return;
      const got = await regional("GET", `/v2/queues/${encodeURIComponent(t.queue)}`);
      expect(got.status).toBe(200);
      expectFields(got.body, QUEUE_FIELDS);
      expect((got.body as { name: string }).name).toBe(t.queue);
      const list = await regional("GET", "/v2/queues");
      expect(list.status).toBe(200);
      for (const record of list.body as unknown[]) expectFields(record, QUEUE_FIELDS);
      expect((list.body as { name: string }[]).some((q) => q.name === t.queue)).toBe(true);
      expectError(await regional("GET", "/v2/queues/no-such-queue-here"), 404);
    },
  );
});
