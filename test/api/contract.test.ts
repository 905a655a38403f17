/**
 * Contract tests: the one client against the emulator over real HTTP, for every endpoint, every
 * success shape and every error of the contract, with retries observed in the request log.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { request } from "undici";
import { MgmtClient } from "../../provider/api/client";
import { ApiError } from "../../provider/api/errors";
import { FlowControlInfo, MessagingAccountRecord, SearchIndexRecord } from "../../provider/api/schemas";
import { resolveSettings } from "../../provider/config";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { clientFor } from "../support/harness";

let emu: RunningEmulator;
let alice: MgmtClient;
let bob: MgmtClient;

function settingsFor(user: { username: string; password: string }, extra: Record<string, string> = {}) {
  return {
    baseUrl: emu.baseUrl,
    messagingUrl: emu.messagingUrl,
    regionalMessagingUrl: emu.regionalMessagingUrl,
    username: user.username,
    password: user.password,
    maxRetries: 3,
    ...extra,
  };
}

beforeAll(async () => {
  emu = await startEmulator();
  alice = clientFor(settingsFor(emu.users[0]));
  bob = clientFor(settingsFor(emu.users[1]));
});
afterAll(() => emu.close());
beforeEach(() => emu.emulator.reset());

/** The ApiError a promise rejects with. */
async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected the call to fail");
}

const aliceAccount = (region: string) => emu.users[0].accounts.find((a) => a.region === region)!;

describe("search indexes (endpoints 1-3, assumed rename and delete)", () => {
  test("create, get, list, rename and delete answer the documented shapes", async () => {
    const created = await alice.createSearchIndex({ name: "docs", region: "eu-west-1", type: "free" });
    expect(SearchIndexRecord.strict().safeParse(created).success).toBe(true); // every documented field, nothing else
    expect(created).toMatchObject({ name: "docs", region: "eu-west-1", type: "free", customer_id: "alice@emulator.local", integration_email: "" });
    const got = await alice.getSearchIndex(created.id);
    expect(got.id).toBe(created.id);
    expect(got.throughput_vector![0].x).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \+0000 UTC$/);
    expect((await alice.listSearchIndexes()).map((i) => i.id)).toEqual([created.id]);
    await alice.renameSearchIndex(created.id, "docs-v2");
    expect((await alice.getSearchIndex(created.id)).name).toBe("docs-v2");
    await alice.deleteSearchIndex(created.id);
    expect(await alice.listSearchIndexes()).toEqual([]);
  });

  test.each([
    [{ name: "", region: "eu-west-1", type: "free" }, /name: must not be empty/],
    [{ name: "a b", region: "eu-west-1", type: "free" }, /name: may contain only letters, digits, '-' and '_'/],
    [{ name: "x".repeat(65), region: "eu-west-1", type: "free" }, /name: must be at most 64 characters/],
    [{ name: "ok", region: "eu-north-9", type: "free" }, /region: Invalid option: expected one of "eu-west-1"\|"us-central1"/],
    [{ name: "ok", region: "eu-west-1", type: "gold" }, /type: Invalid option/],
    [{ name: "ok", region: "eu-west-1", type: "fixed" }, /^fixed plan is not available$/],
    [{ name: "ok", type: "free" }, /region: Invalid option/],
    [{ name: 7, region: "eu-west-1", type: "free" }, /name: must be a string/],
  ])("create refuses %j with 400", async (body, message) => {
    const res = await request(`${emu.baseUrl}/v2/search`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from(`alice:${emu.users[0].password}`).toString("base64")}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.statusCode).toBe(400);
    expect(((await res.body.json()) as { error: string }).error).toMatch(message);
    expect(await alice.listSearchIndexes()).toEqual([]);
  });

  test("the client validates a create body before sending it", async () => {
    await expect(alice.createSearchIndex({ name: "a/b", region: "eu-west-1", type: "free" })).rejects.toThrow(/may contain only/);
    expect(emu.requests()).toEqual([]);
  });

  test("fixed is refused by the service with its own message", async () => {
    const err = await failure(alice.createSearchIndex({ name: "ok", region: "eu-west-1", type: "fixed" }));
    expect(err.status).toBe(400);
    expect(err.serviceMessage).toBe("fixed plan is not available");
    expect(err.message).toBe("POST /v2/search failed: 400: fixed plan is not available");
  });

  test("names are unique per user: 409 for alice, while bob may use the same name", async () => {
    const first = await alice.createSearchIndex({ name: "dup", region: "eu-west-1", type: "free" });
    expect((await failure(alice.createSearchIndex({ name: "dup", region: "us-central1", type: "free" }))).status).toBe(409);
    await alice.createSearchIndex({ name: "other", region: "eu-west-1", type: "free" });
    expect((await failure(alice.renameSearchIndex(first.id, "other"))).status).toBe(409);
    await expect(bob.createSearchIndex({ name: "dup", region: "eu-west-1", type: "free" })).resolves.toMatchObject({ name: "dup" });
  });

  test("another user's index is a 404, never a hint that it exists", async () => {
    const mine = await alice.createSearchIndex({ name: "private", region: "eu-west-1", type: "free" });
    for (const call of [bob.getSearchIndex(mine.id), bob.renameSearchIndex(mine.id, "x"), bob.deleteSearchIndex(mine.id)]) {
      const err = await failure(call);
      expect(err.status).toBe(404);
      expect(err.serviceMessage).toMatch(/not found/);
    }
    expect(await bob.listSearchIndexes()).toEqual([]);
    expect((await failure(alice.getSearchIndex("no-such-id"))).status).toBe(404);
  });

  test("wrong credentials: 401 with advice that names the config keys and never the password", async () => {
    const wrong = clientFor(settingsFor({ username: "alice", password: "not-the-password" }));
    const err = await failure(wrong.listSearchIndexes());
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/check mgmt:username and mgmt:password/);
    expect(err.message).not.toContain("not-the-password");
  });

  test("the placement override deploys a requested region elsewhere", async () => {
    emu.emulator.placement["us-central1"] = "eu-west-1";
    expect((await alice.createSearchIndex({ name: "moved", region: "us-central1", type: "free" })).region).toBe("eu-west-1");
  });
});

describe("messaging accounts (endpoints 4, 5)", () => {
  test("the list answers every field of record 2.2 for the user's own accounts in both regions", async () => {
    const accounts = await alice.listMessagingAccounts();
    expect(accounts).toHaveLength(4);
    for (const a of accounts) expect(MessagingAccountRecord.strict().safeParse(a).success).toBe(true);
    expect(new Set(accounts.map((a) => a.region))).toEqual(new Set(["eu-central-1", "us-east-1"]));
    expect(accounts[0].prometheus_enabled).toBe("false");
    const bobs = await bob.listMessagingAccounts();
    expect(bobs.some((b) => accounts.some((a) => a.id === b.id))).toBe(false);
  });

  test("budgets: 0, 20 and 10000 are accepted; everything else is a 400 naming the rule", async () => {
    const id = aliceAccount("eu-central-1").id;
    for (const budget of [0, 20, 10000]) {
      await alice.updateBudget(id, budget);
      expect((await alice.listMessagingAccounts()).find((a) => a.id === id)!.budget).toBe(budget);
    }
    for (const budget of [-1, 5, 19, 20.5, 10001, "100"]) {
      const err = await failure(alice.updateBudget(id, budget as number));
      expect(err.status).toBe(400);
      expect(err.serviceMessage).toMatch(/^budget: /);
    }
  });

  test("an unknown or another user's account is a 404", async () => {
    expect((await failure(alice.updateBudget("nope", 50))).status).toBe(404);
    expect((await failure(bob.updateBudget(aliceAccount("us-east-1").id, 50))).status).toBe(404);
  });
});

describe("flow control keys and queues (endpoints 6-9, assumed lift of a pause)", () => {
  function seed(accountId: string) {
    const account = emu.emulator.data.accounts.find((a) => a.record.id === accountId)!;
    account.keys["tenant:42"] = { waitListSize: 17, paused: false, rateResets: 0 };
    account.queues["emails.v1"] = { paused: true, resumes: 0 };
    return account;
  }

  test("wait list, reset rate, pause, resume and queue resume, on the right addresses", async () => {
    const { id, token } = aliceAccount("eu-central-1");
    const account = seed(id);
    const info = await alice.getFlowControl("tenant:42", token);
    expect(FlowControlInfo.safeParse(info).success).toBe(true);
    expect(info).toMatchObject({ flowControlKey: "tenant:42", waitListSize: 17, isPaused: false, isPinnedParallelism: false, isPinnedRate: false });
    await alice.resetRate("eu-central-1", "tenant:42", token);
    await alice.pauseFlowControl("eu-central-1", "tenant:42", token);
    await alice.pauseFlowControl("eu-central-1", "tenant:42", token); // pausing a paused key changes nothing
    expect(account.keys["tenant:42"]).toMatchObject({ waitListSize: 17, paused: true, rateResets: 1 });
    await alice.resumeFlowControl("eu-central-1", "tenant:42", token);
    expect(account.keys["tenant:42"].paused).toBe(false);
    await alice.resumeQueue("eu-central-1", "emails.v1", token);
    await alice.resumeQueue("eu-central-1", "emails.v1", token);
    expect(account.queues["emails.v1"]).toMatchObject({ paused: false, resumes: 2 });
    expect(emu.requests().map((r) => r.path)).toEqual([
      "/messaging/v2/flowControl/tenant%3A42",
      "/regional/eu-central-1/v2/flowControl/tenant%3A42/resetRate",
      "/regional/eu-central-1/v2/flowControl/tenant%3A42/pause",
      "/regional/eu-central-1/v2/flowControl/tenant%3A42/pause",
      "/regional/eu-central-1/v2/flowControl/tenant%3A42/resume",
      "/regional/eu-central-1/v2/queues/emails.v1/resume",
      "/regional/eu-central-1/v2/queues/emails.v1/resume",
    ]);
  });

  test("errors: 400 invalid key or queue, 404 unknown, 401 bad token or wrong region", async () => {
    const { id, token } = aliceAccount("eu-central-1");
    seed(id);
    const cases: [Promise<unknown>, number, RegExp][] = [
      [alice.resetRate("eu-central-1", "", token), 400, /flow control key must not be empty/],
      [alice.pauseFlowControl("eu-central-1", "a b", token), 400, /may contain only/],
      [alice.resumeQueue("eu-central-1", "..", token), 400, /must not be '\.' or '\.\.'/],
      [alice.resetRate("eu-central-1", "unknown", token), 404, /flow control key unknown not found/],
      [alice.pauseFlowControl("eu-central-1", "unknown", token), 404, /not found/],
      [alice.resumeQueue("eu-central-1", "unknown", token), 404, /queue unknown not found/],
      [alice.getFlowControl("unknown", token), 404, /not found/],
      [alice.resetRate("us-east-1", "tenant:42", token), 401, /^user not found in this region$/],
      [alice.resetRate("eu-central-1", "tenant:42", "not-a-token"), 401, /unauthorized/],
    ];
    for (const [call, status, message] of cases) {
      const err = await failure(call);
      expect([err.status, err.serviceMessage]).toEqual([status, expect.stringMatching(message)]);
      expect(err.message).not.toContain(token);
    }
    const unauthorized = await failure(alice.resetRate("eu-central-1", "tenant:42", "not-a-token"));
    expect(unauthorized.message).toMatch(/check the messaging token/);
  });

  test("additions: pin and unpin (query parameters, counters reset), global parallelism", async () => {
    const { id, token } = aliceAccount("eu-central-1");
    const account = seed(id);
    account.keys["tenant:42"].carried = { parallelism: 3, rate: 50, period: 60 };
    expect(await alice.getFlowControl("tenant:42", token)).toMatchObject({ parallelismMax: 3, rateMax: 50, ratePeriod: 60, isPinnedParallelism: false, isPinnedRate: false });
    await alice.pinFlowControl("eu-central-1", "tenant:42", { parallelism: 5, rate: 100 }, token);
    expect(await alice.getFlowControl("tenant:42", token)).toMatchObject({ parallelismMax: 5, rateMax: 100, ratePeriod: 60, rateCount: 0, isPinnedParallelism: true, isPinnedRate: true });
    expect(account.keys["tenant:42"]).toMatchObject({ pins: 1, rateResets: 1 });
    await alice.unpinFlowControl("eu-central-1", "tenant:42", { rate: true }, token);
    expect(await alice.getFlowControl("tenant:42", token)).toMatchObject({ parallelismMax: 5, rateMax: 50, isPinnedParallelism: true, isPinnedRate: false });
    await alice.unpinFlowControl("eu-central-1", "tenant:42", { parallelism: true }, token);
    expect(account.keys["tenant:42"].pinned).toBeUndefined();
    expect(emu.requests({ method: "POST" }).map((r) => r.path)).toEqual([
      "/regional/eu-central-1/v2/flowControl/tenant%3A42/pin",
      "/regional/eu-central-1/v2/flowControl/tenant%3A42/unpin",
      "/regional/eu-central-1/v2/flowControl/tenant%3A42/unpin",
    ]);
    // Pin without any part, unpin without any part: 400 naming what to give.
    const noPart = await failure(alice.pinFlowControl("eu-central-1", "tenant:42", {}, token));
    expect([noPart.status, noPart.serviceMessage]).toEqual([400, expect.stringMatching(/at least one of parallelism, rate, period/)]);
    expect((await failure(alice.unpinFlowControl("eu-central-1", "tenant:42", {}, token))).status).toBe(400);
    // A key that never carried a message: pinning creates it (contract); unpinning it first is a 404.
    expect((await failure(alice.unpinFlowControl("eu-central-1", "unknown", { rate: true }, token))).status).toBe(404);
    await alice.pinFlowControl("eu-central-1", "unknown", { rate: 1 }, token);
    expect(await alice.getFlowControl("unknown", token)).toMatchObject({ flowControlKey: "unknown", waitListSize: 0, rateMax: 1, isPinnedRate: true });

    // The spec's two fields only, spelled `waitlistSize` by some answers: read the same way.
    expect(FlowControlInfo.parse({ flowControlKey: "k", waitlistSize: 4 })).toEqual({ flowControlKey: "k", waitListSize: 4 });
    emu.emulator.controls.flowControlReport = "documented";
    expect(await alice.getFlowControl("tenant:42", token)).toEqual({ flowControlKey: "tenant:42", waitListSize: 17 });

    // Global parallelism: a field left out when 0 reads as 0.
    account.queues = {};
    expect(await alice.getGlobalParallelism(token)).toEqual({ parallelismMax: 1000, parallelismCount: 0 });
    account.queues.q = { paused: false, resumes: 0, parallelism: 4 };
    expect(await alice.getGlobalParallelism(token)).toEqual({ parallelismMax: 1000, parallelismCount: 4 });
  });

  test("additions: queue upsert, get, list, pause, delete, and the 412 queue limit", async () => {
    const { id, token } = aliceAccount("eu-central-1");
    const account = seed(id);
    await alice.upsertQueue("eu-central-1", { queueName: "orders", parallelism: 3, paused: false }, token);
    expect(await alice.getQueue("eu-central-1", "orders", token)).toMatchObject({ name: "orders", parallelism: 3, paused: false, lag: 0 });
    await alice.upsertQueue("eu-central-1", { queueName: "orders", parallelism: 2, paused: true }, token);
    await alice.pauseQueue("eu-central-1", "orders", token); // pausing a paused queue changes nothing
    expect(await alice.getQueue("eu-central-1", "orders", token)).toMatchObject({ parallelism: 2, paused: true });
    expect((await alice.listQueues("eu-central-1", token)).map((q) => q.name).sort()).toEqual(["emails.v1", "orders"]);
    await alice.deleteQueue("eu-central-1", "orders", token);
    expect((await failure(alice.getQueue("eu-central-1", "orders", token))).status).toBe(404);
    expect((await failure(alice.deleteQueue("eu-central-1", "orders", token))).status).toBe(404);

    // An upsert without parallelism resets it to 1 (why the client always sends the full state).
    await request(`${emu.regionalMessagingUrl.replace("{region}", "eu-central-1")}/v2/queues`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ queueName: "emails.v1" }),
    }).then((r) => r.body.text());
    expect(account.queues["emails.v1"]).toMatchObject({ parallelism: 1, paused: false });

    account.record.max_queues = 1;
    const full = await failure(alice.upsertQueue("eu-central-1", { queueName: "another", parallelism: 1, paused: false }, token));
    expect([full.status, full.serviceMessage]).toEqual([412, expect.stringMatching(/queue limit reached/)]);
    await alice.upsertQueue("eu-central-1", { queueName: "emails.v1", parallelism: 2, paused: false }, token); // existing: no new queue
    expect((await failure(alice.getQueue("us-east-1", "emails.v1", token))).status).toBe(401);
  });

  test("another user's token cannot see this account's keys", async () => {
    seed(aliceAccount("eu-central-1").id);
    const bobsToken = emu.users[1].accounts.find((a) => a.region === "eu-central-1")!.token;
    expect((await failure(bob.getFlowControl("tenant:42", bobsToken))).status).toBe(404);
  });

  test("a path-like key is one percent-encoded segment, never a path", async () => {
    const { token } = aliceAccount("eu-central-1");
    await failure(alice.getFlowControl("../x", token)).catch(() => undefined);
    await failure(alice.getFlowControl("a/b", token)).catch(() => undefined);
    expect(emu.requests().map((r) => r.path)).toEqual(["/messaging/v2/flowControl/..%2Fx", "/messaging/v2/flowControl/a%2Fb"]);
  });
});

describe("retries", () => {
  test("idempotent requests retry 429 (honouring Retry-After), 5xx and dropped connections", async () => {
    emu.addFault({ method: "GET", path: "^/v2/search$", status: 429, retryAfter: 1 });
    emu.addFault({ method: "GET", path: "^/v2/search$", status: 500 });
    emu.addFault({ method: "GET", path: "^/v2/search$", drop: true });
    emu.addFault({ method: "GET", path: "^/v2/search$", status: 502 });
    const started = Date.now();
    await expect(clientFor(settingsFor(emu.users[0], { maxRetries: "5" })).listSearchIndexes()).resolves.toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(emu.requests().map((r) => r.status)).toEqual([429, 500, "dropped", 502, 200]);
  });

  test("budgets, flow control and queue actions retry too", async () => {
    const { id, token } = aliceAccount("us-east-1");
    emu.emulator.data.accounts.find((a) => a.record.id === id)!.keys.k = { waitListSize: 0, paused: false, rateResets: 0 };
    emu.addFault({ method: "PATCH", status: 503 });
    emu.addFault({ method: "POST", path: "resetRate$", status: 500 });
    await alice.updateBudget(id, 100);
    await alice.resetRate("us-east-1", "k", token);
    expect(emu.requests().map((r) => `${r.method} ${r.status}`)).toEqual(["PATCH 503", "PATCH 200", "POST 500", "POST 200"]);
  });

  test("the client resends a create on its own only after a 429 (the service says it did not process it)", async () => {
    emu.addFault({ method: "POST", path: "^/v2/search$", status: 429, retryAfter: 1 });
    await alice.createSearchIndex({ name: "retried", region: "eu-west-1", type: "free" });
    expect(emu.requests().map((r) => r.status)).toEqual([429, 200]);
  });

  test("create is never re-sent after an ambiguous failure, 503 included (a proxy may answer it after a commit)", async () => {
    for (const fault of [{ status: 500 }, { status: 503 }, { commitThenStatus: 503 }, { drop: true }, { commitThenDrop: true }]) {
      emu.emulator.reset();
      emu.addFault({ method: "POST", path: "^/v2/search$", ...fault });
      const err = await failure(alice.createSearchIndex({ name: "once", region: "eu-west-1", type: "free" }));
      expect(err.isAmbiguous).toBe(true);
      expect(emu.requests()).toHaveLength(1);
    }
    expect((await alice.listSearchIndexes()).map((i) => i.name)).toEqual(["once"]); // the commit-then-drop one
  });

  test("set-plan: same id and tokens, the new plan's limits; the same plan again is a no-op; fixed and unknown ids refused", async () => {
    const created = await alice.createSearchIndex({ name: "plan", region: "eu-west-1", type: "free" });
    await alice.setSearchIndexPlan(created.id, "payg");
    const after = await alice.getSearchIndex(created.id);
    expect(after).toMatchObject({ id: created.id, name: "plan", token: created.token, endpoint: created.endpoint, type: "payg", max_daily_queries: -1 });
    await alice.setSearchIndexPlan(created.id, "payg");
    expect(emu.requests({ route: "POST /v2/search/:id/setplan" }).map((r) => r.status)).toEqual([200, 200]);
    expect((await failure(alice.setSearchIndexPlan(created.id, "fixed"))).message).toMatch(/400: fixed plan is not available/);
    expect((await failure(bob.setSearchIndexPlan(created.id, "free"))).status).toBe(404);
  });

  test("exhausted retries end in an error with the last status and the service's text", async () => {
    const impatient = clientFor(settingsFor(emu.users[0], { maxRetries: "1" }));
    emu.addFault({ method: "GET", status: 503, times: 5 });
    const err = await failure(impatient.listSearchIndexes());
    expect([err.status, err.serviceMessage]).toEqual([503, "injected fault"]);
    expect(err.message).toMatch(/retries were exhausted/);
    expect(emu.requests()).toHaveLength(2);
  });

  test("an answer slower than the timeout is a timeout, retried for reads", async () => {
    // undici checks timeouts on a coarse (about half a second) clock: delays well past the limit.
    const quick = clientFor(settingsFor(emu.users[0], { timeoutMs: "300" }));
    emu.addFault({ method: "GET", delayMs: 2000 });
    await expect(quick.listSearchIndexes()).resolves.toEqual([]);
    expect(emu.requests().map((r) => r.status)).toEqual(["abandoned", 200]); // the client gave up on the slow one, then retried
    emu.addFault({ method: "GET", delayMs: 2000, times: 10 });
    const err = await failure(clientFor(settingsFor(emu.users[0], { timeoutMs: "300", maxRetries: "1" })).listSearchIndexes());
    expect(err.status).toBeUndefined();
    expect(err.message).toMatch(/no answer.*UND_ERR_HEADERS_TIMEOUT/);
  });

  test("a base URL that refuses connections fails with advice naming mgmt:baseUrl", async () => {
    const nowhere = new MgmtClient(resolveSettings((k) => ({ "mgmt:baseUrl": "http://127.0.0.1:9", "mgmt:username": "u", "mgmt:password": "p", "mgmt:maxRetries": "1" })[k], {}));
    const err = await failure(nowhere.listSearchIndexes());
    expect(err.message).toMatch(/ECONNREFUSED.*check mgmt:baseUrl/);
  });
});

describe("the emulator's own robustness and persistence", () => {
  const auth = () => ({ authorization: `Basic ${Buffer.from(`alice:${emu.users[0].password}`).toString("base64")}` });

  test.each([
    ["malformed JSON", "{\"name\": ", "application/json"],
    ["a JSON array", "[1,2]", "application/json"],
    ["a wrong content type", "name=x", "application/x-www-form-urlencoded"],
    ["a huge body", JSON.stringify({ name: "x".repeat(200_000) }), "application/json"],
  ])("%s gets a 400 with an error body", async (_label, body, type) => {
    const res = await request(`${emu.baseUrl}/v2/search`, { method: "POST", headers: { ...auth(), "content-type": type }, body });
    expect(res.statusCode).toBe(400);
    expect(await res.body.json()).toEqual({ error: expect.any(String) });
    const still = await request(`${emu.baseUrl}/v2/search`, { headers: auth() });
    expect(still.statusCode).toBe(200);
    await still.body.dump();
  });

  test("state persists to the data file and survives a restart", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "emu-data-"));
    const file = path.join(dir, "state.json");
    const first = await startEmulator({ dataFile: file });
    const user = first.users[0];
    const client = new MgmtClient(resolveSettings((k) => ({ "mgmt:baseUrl": first.baseUrl, "mgmt:username": user.username, "mgmt:password": user.password })[k], {}));
    const created = await client.createSearchIndex({ name: "durable", region: "eu-west-1", type: "free" });
    await first.close();
    expect(JSON.parse(readFileSync(file, "utf8")).indexes).toHaveLength(1);

    const second = await startEmulator({ dataFile: file });
    const again = new MgmtClient(resolveSettings((k) => ({ "mgmt:baseUrl": second.baseUrl, "mgmt:username": user.username, "mgmt:password": user.password })[k], {}));
    expect((await again.getSearchIndex(created.id)).name).toBe("durable");
    expect(second.users[0].password).toBe(user.password);
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("test controls answer over HTTP on loopback: faults, counters, keys", async () => {
    const post = (p: string, body: unknown) => request(`${emu.url}/_emulator${p}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.body.json());
    await post("/faults", { method: "GET", status: 503 });
    await post("/keys", { accountId: aliceAccount("eu-central-1").id, key: "k", waitListSize: 3 });
    await alice.listSearchIndexes();
    expect(await alice.getFlowControl("k", aliceAccount("eu-central-1").token)).toMatchObject({ waitListSize: 3 });
    const counters = (await (await request(`${emu.url}/_emulator/counters`)).body.json()) as { byRoute: Record<string, number>; byStatus: Record<string, number> };
    expect(counters.byRoute).toEqual({ "GET /v2/search": 2, "GET /messaging/v2/flowControl/:key": 1 });
    expect(counters.byStatus).toEqual({ "200": 2, "503": 1 });
    expect(await post("/faults", { status: "bad" })).toEqual({ error: expect.stringMatching(/status/) });
  });
});
