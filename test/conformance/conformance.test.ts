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

let t: Target;
beforeAll(async () => {
  t = await conformanceTarget();
});
afterAll(() => t?.stop());

const basic = (u: { username: string; password: string }) => `Basic ${Buffer.from(`${u.username}:${u.password}`).toString("base64")}`;

interface Answer {
  status: number;
  body: unknown;
  contentType: string | null;
}

async function call(method: string, url: string, authorization: string | undefined, body?: unknown, jsonHeaderAlways = false): Promise<Answer> {
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

const mgmt = (method: string, p: string, body?: unknown, user = t.user) => call(method, `${t.baseUrl}${p}`, basic(user), body);
const messaging = (method: string, p: string, token = t.messaging!.token) => call(method, `${t.messagingUrl}${p}`, `Bearer ${token}`);
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

  writesOnly("create, get, list, rename, set-plan and delete: methods, paths, statuses and bodies as documented", async () => {
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
      expect(point).toEqual({ x: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \+0000 UTC$/), y: expect.any(Number) });
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
    expectError(await mgmt("POST", `/v2/search/${id}/setplan`, { target_plan: "fixed" }), 400, /fixed plan is not available/);

    if (t.otherUser) {
      // Another user's index: 404, never a hint that it exists.
      expectError(await mgmt("GET", `/v2/search/${id}`, undefined, t.otherUser), 404, /not found/);
      expectError(await mgmt("DELETE", `/v2/search/${id}`, undefined, t.otherUser), 404, /not found/);
      expect(((await mgmt("GET", "/v2/search", undefined, t.otherUser)).body as { id: string }[]).some((i) => i.id === id)).toBe(false);
    }

    expectOk(await mgmt("DELETE", `/v2/search/${id}`));
    expectError(await mgmt("GET", `/v2/search/${id}`), 404, /not found/);
    expectError(await mgmt("DELETE", `/v2/search/${id}`), 404);
  });

  writesOnly("bodiless POST and DELETE carrying Content-Type: application/json, as real clients send them, are taken like any other", async () => {
    const created = await mgmt("POST", "/v2/search", { name: unique("conf-ct"), region: "eu-west-1", type: "free" });
    const id = (created.body as { id: string }).id;
    expectOk(await call("DELETE", `${t.baseUrl}/v2/search/${id}`, basic(t.user), undefined, true));
    expectError(await mgmt("GET", `/v2/search/${id}`), 404);
    if (t.key && t.messaging) {
      const key = encodeURIComponent(t.key);
      expectOk(await call("POST", `${t.regionalMessagingUrl.replace("{region}", t.messaging.region)}/v2/flowControl/${key}/resetRate`, `Bearer ${t.messaging.token}`, undefined, true));
    }
  });

  writesOnly("create refuses bad input with 400 naming the field, and 'fixed' with its own message", async () => {
    expectError(await mgmt("POST", "/v2/search", { name: unique("conf"), region: "eu-west-1", type: "fixed" }), 400, /fixed plan is not available/);
    expectError(await mgmt("POST", "/v2/search", { name: unique("conf"), region: "mars-1", type: "free" }), 400, /region/);
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

  writesOnly("PATCH /v2/messaging/update-budget/{id}: 200 \"OK\" for 0, 20 and 10000; 400 outside; 404 unknown or another user's", async () => {
    const [account] = (await mgmt("GET", "/v2/messaging/users")).body as { id: string; budget: number }[];
    const before = account.budget;
    for (const budget of [20, 10000, 0]) expectOk(await mgmt("PATCH", `/v2/messaging/update-budget/${account.id}`, { budget }));
    for (const budget of [10, -1, 10001, 20.5, "20"]) expectError(await mgmt("PATCH", `/v2/messaging/update-budget/${account.id}`, { budget }), 400, /budget/);
    expectError(await mgmt("PATCH", "/v2/messaging/update-budget/no-such-account", { budget: 20 }), 404);
    if (t.otherUser) expectError(await mgmt("PATCH", `/v2/messaging/update-budget/${account.id}`, { budget: 20 }, t.otherUser), 404);
    expectOk(await mgmt("PATCH", `/v2/messaging/update-budget/${account.id}`, { budget: before }));
  });
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

  writesWithKey("pinning a key that never carried a message creates it with the pinned values; pause of an unknown key is still 404", async () => {
    const key = unique("conf-new-key");
    expectError(await regional("POST", `/v2/flowControl/${key}/pause`), 404);
    expectOk(await regional("POST", `/v2/flowControl/${key}/pin?parallelism=3`));
    const read = await messaging("GET", `/v2/flowControl/${key}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ flowControlKey: key, waitListSize: 0 });
    expectOk(await regional("POST", `/v2/flowControl/${key}/pause`));
  });

  writesWithKey("resetRate, pause and resume of a key, resume of a queue: POST without a body, 200 \"OK\"; 404 unknown; 401 in another region", async () => {
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
    if (t.messaging!.otherRegion) expectError(await regional("POST", `/v2/flowControl/${key}/pause`, t.messaging!.otherRegion), 401, /user not found in this region/);
  });
});

