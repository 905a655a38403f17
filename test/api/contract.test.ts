/**
 * Contract tests: the one client against the emulator over real HTTP, for every endpoint, every
 * success shape and every error of the contract, with retries observed in the request log.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { request } from "undici";
import { MgmtClient } from "../../provider/api/client";
import { ApiError, UnauthorizedError } from "../../provider/api/errors";
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
    const created = await alice.searchIndexes.create({ name: "docs", region: "eu-west-1", type: "free" });
    expect(SearchIndexRecord.strict().safeParse(created).success).toBe(true); // every documented field, nothing else
    expect(created).toMatchObject({
      name: "docs",
      region: "eu-west-1",
      type: "free",
      customer_id: "alice@emulator.local",
      integration_email: "",
    });
    const got = await alice.searchIndexes.get(created.id);
    expect(got.id).toBe(created.id);
    expect(got.throughput_vector![0].x).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \+0000 UTC$/);
    expect((await alice.searchIndexes.list()).map((i) => i.id)).toEqual([created.id]);
    await alice.searchIndexes.rename(created.id, "docs-v2");
    expect((await alice.searchIndexes.get(created.id)).name).toBe("docs-v2");
    await alice.searchIndexes.delete(created.id);
    expect(await alice.searchIndexes.list()).toEqual([]);
  });

  test.each([
    [{ name: "", region: "eu-west-1", type: "free" }, /name: must not be empty/],
    [{ name: "a b", region: "eu-west-1", type: "free" }, /name: may contain only letters, digits, '-' and '_'/],
    [{ name: "x".repeat(65), region: "eu-west-1", type: "free" }, /name: must be at most 64 characters/],
    [
      { name: "ok", region: "eu-north-9", type: "free" },
      /region: Invalid option: expected one of "eu-west-1"\|"us-central1"/,
    ],
    [{ name: "ok", region: "eu-west-1", type: "gold" }, /type: Invalid option/],
    [{ name: "ok", region: "eu-west-1", type: "fixed" }, /^fixed plan is not available$/],
    [{ name: "ok", type: "free" }, /region: Invalid option/],
    [{ name: 7, region: "eu-west-1", type: "free" }, /name: must be a string/],
  ])("create refuses %j with 400", async (body, message) => {
    const res = await request(`${emu.baseUrl}/v2/search`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`alice:${emu.users[0].password}`).toString("base64")}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
    expect(res.statusCode).toBe(400);
    expect(((await res.body.json()) as { error: string }).error).toMatch(message);
    expect(await alice.searchIndexes.list()).toEqual([]);
  });

  test("the client validates a create body before sending it", async () => {
    await expect(alice.searchIndexes.create({ name: "a/b", region: "eu-west-1", type: "free" })).rejects.toThrow(
      /may contain only/,
    );
    expect(emu.requests()).toEqual([]);
  });

  test("fixed is refused by the service with its own message", async () => {
    const err = await failure(alice.searchIndexes.create({ name: "ok", region: "eu-west-1", type: "fixed" }));
    expect(err.status).toBe(400);
    expect(err.serviceMessage).toBe("fixed plan is not available");
    expect(err.message).toBe("POST /v2/search failed: 400: fixed plan is not available");
  });

  test("names are unique per user: 409 for alice, while bob may use the same name", async () => {
    const first = await alice.searchIndexes.create({ name: "dup", region: "eu-west-1", type: "free" });
    expect(
      (await failure(alice.searchIndexes.create({ name: "dup", region: "us-central1", type: "free" }))).status,
    ).toBe(409);
    await alice.searchIndexes.create({ name: "other", region: "eu-west-1", type: "free" });
    expect((await failure(alice.searchIndexes.rename(first.id, "other"))).status).toBe(409);
    await expect(bob.searchIndexes.create({ name: "dup", region: "eu-west-1", type: "free" })).resolves.toMatchObject({
      name: "dup",
    });
  });

  test("another user's index is a 404, never a hint that it exists", async () => {
    const mine = await alice.searchIndexes.create({ name: "private", region: "eu-west-1", type: "free" });
    for (const call of [
      bob.searchIndexes.get(mine.id),
      bob.searchIndexes.rename(mine.id, "x"),
      bob.searchIndexes.delete(mine.id),
    ]) {
      const err = await failure(call);
      expect(err.status).toBe(404);
      expect(err.serviceMessage).toMatch(/not found/);
    }
    expect(await bob.searchIndexes.list()).toEqual([]);
    expect((await failure(alice.searchIndexes.get("no-such-id"))).status).toBe(404);
  });

  test("wrong credentials: 401 with advice that names the config keys and never the password", async () => {
    const wrong = clientFor(settingsFor({ username: "alice", password: "not-the-password" }));
    const err = await failure(wrong.searchIndexes.list());
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/check mgmt:username and mgmt:password/);
    expect(err.message).not.toContain("not-the-password");
  });

  test("the placement override deploys a requested region elsewhere", async () => {
    emu.emulator.placement["us-central1"] = "eu-west-1";
    expect((await alice.searchIndexes.create({ name: "moved", region: "us-central1", type: "free" })).region).toBe(
      "eu-west-1",
    );
  });
});

describe("messaging accounts (endpoints 4, 5)", () => {
  test("the list answers every field of record 2.2 for the user's own accounts in both regions", async () => {
    const accounts = await alice.messagingAccounts.list();
    expect(accounts).toHaveLength(4);
    for (const a of accounts) expect(MessagingAccountRecord.strict().safeParse(a).success).toBe(true);
    expect(new Set(accounts.map((a) => a.region))).toEqual(new Set(["eu-central-1", "us-east-1"]));
    expect(accounts[0].prometheus_enabled).toBe("false");
    const bobs = await bob.messagingAccounts.list();
    expect(bobs.some((b) => accounts.some((a) => a.id === b.id))).toBe(false);
  });

  test("budgets: 0, 20 and 10000 are accepted; everything else is a 400 naming the rule", async () => {
    const id = aliceAccount("eu-central-1").id;
    for (const budget of [0, 20, 10000]) {
      await alice.messagingAccounts.setBudget(id, budget);
      expect((await alice.messagingAccounts.list()).find((a) => a.id === id)!.budget).toBe(budget);
    }
    for (const budget of [-1, 5, 19, 20.5, 10001, "100"]) {
      const err = await failure(alice.messagingAccounts.setBudget(id, budget as number));
      expect(err.status).toBe(400);
      expect(err.serviceMessage).toMatch(/^budget: /);
    }
  });

  test("an unknown or another user's account is a 404", async () => {
    expect((await failure(alice.messagingAccounts.setBudget("nope", 50))).status).toBe(404);
    expect((await failure(bob.messagingAccounts.setBudget(aliceAccount("us-east-1").id, 50))).status).toBe(404);
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
    const info = await alice.flowControl({ token }).get("tenant:42");
    expect(FlowControlInfo.safeParse(info).success).toBe(true);
    expect(info).toMatchObject({
      flowControlKey: "tenant:42",
      waitListSize: 17,
      isPaused: false,
      isPinnedParallelism: false,
      isPinnedRate: false,
    });
    await alice.flowControl({ region: "eu-central-1", token }).resetRate("tenant:42");
    await alice.flowControl({ region: "eu-central-1", token }).pause("tenant:42");
    await alice.flowControl({ region: "eu-central-1", token }).pause("tenant:42"); // pausing a paused key changes nothing
    expect(account.keys["tenant:42"]).toMatchObject({ waitListSize: 17, paused: true, rateResets: 1 });
    await alice.flowControl({ region: "eu-central-1", token }).resume("tenant:42");
    expect(account.keys["tenant:42"].paused).toBe(false);
    await alice.queues({ region: "eu-central-1", token }).resume("emails.v1");
    await alice.queues({ region: "eu-central-1", token }).resume("emails.v1");
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
      [alice.flowControl({ region: "eu-central-1", token }).resetRate(""), 400, /flow control key must not be empty/],
      [alice.flowControl({ region: "eu-central-1", token }).pause("a b"), 400, /may contain only/],
      [alice.queues({ region: "eu-central-1", token }).resume(".."), 400, /must not be '\.' or '\.\.'/],
      [
        alice.flowControl({ region: "eu-central-1", token }).resetRate("unknown"),
        404,
        /flow control key unknown not found/,
      ],
      [alice.flowControl({ region: "eu-central-1", token }).pause("unknown"), 404, /not found/],
      [alice.queues({ region: "eu-central-1", token }).resume("unknown"), 404, /queue unknown not found/],
      [alice.flowControl({ token }).get("unknown"), 404, /not found/],
      [
        alice.flowControl({ region: "us-east-1", token }).resetRate("tenant:42"),
        401,
        /^user not found in this region$/,
      ],
      [alice.flowControl({ region: "eu-central-1", token: "not-a-token" }).resetRate("tenant:42"), 401, /unauthorized/],
    ];
    for (const [call, status, message] of cases) {
      const err = await failure(call);
      expect([err.status, err.serviceMessage]).toEqual([status, expect.stringMatching(message)]);
      expect(err.message).not.toContain(token);
    }
    const unauthorized = await failure(
      alice.flowControl({ region: "eu-central-1", token: "not-a-token" }).resetRate("tenant:42"),
    );
    expect(unauthorized.message).toMatch(/check the messaging token/);
  });

  test("additions: pin and unpin (query parameters, counters reset), global parallelism", async () => {
    const { id, token } = aliceAccount("eu-central-1");
    const account = seed(id);
    account.keys["tenant:42"].carried = { parallelism: 3, rate: 50, period: 60 };
    expect(await alice.flowControl({ token }).get("tenant:42")).toMatchObject({
      parallelismMax: 3,
      rateMax: 50,
      ratePeriod: 60,
      isPinnedParallelism: false,
      isPinnedRate: false,
    });
    await alice.flowControl({ region: "eu-central-1", token }).pin("tenant:42", { parallelism: 5, rate: 100 });
    expect(await alice.flowControl({ token }).get("tenant:42")).toMatchObject({
      parallelismMax: 5,
      rateMax: 100,
      ratePeriod: 60,
      rateCount: 0,
      isPinnedParallelism: true,
      isPinnedRate: true,
    });
    expect(account.keys["tenant:42"]).toMatchObject({ pins: 1, rateResets: 1 });
    await alice.flowControl({ region: "eu-central-1", token }).unpin("tenant:42", { rate: true });
    expect(await alice.flowControl({ token }).get("tenant:42")).toMatchObject({
      parallelismMax: 5,
      rateMax: 50,
      isPinnedParallelism: true,
      isPinnedRate: false,
    });
    await alice.flowControl({ region: "eu-central-1", token }).unpin("tenant:42", { parallelism: true });
    expect(account.keys["tenant:42"].pinned).toBeUndefined();
    expect(emu.requests({ method: "POST" }).map((r) => r.path)).toEqual([
      "/regional/eu-central-1/v2/flowControl/tenant%3A42/pin",
      "/regional/eu-central-1/v2/flowControl/tenant%3A42/unpin",
      "/regional/eu-central-1/v2/flowControl/tenant%3A42/unpin",
    ]);
    // Pin without any part, unpin without any part: 400 naming what to give.
    const noPart = await failure(alice.flowControl({ region: "eu-central-1", token }).pin("tenant:42", {}));
    expect([noPart.status, noPart.serviceMessage]).toEqual([
      400,
      expect.stringMatching(/at least one of parallelism, rate, period/),
    ]);
    expect((await failure(alice.flowControl({ region: "eu-central-1", token }).unpin("tenant:42", {}))).status).toBe(
      400,
    );
    // A key that never carried a message: pinning creates it (contract); unpinning it first is a 404.
    expect(
      (await failure(alice.flowControl({ region: "eu-central-1", token }).unpin("unknown", { rate: true }))).status,
    ).toBe(404);
    await alice.flowControl({ region: "eu-central-1", token }).pin("unknown", { rate: 1 });
    expect(await alice.flowControl({ token }).get("unknown")).toMatchObject({
      flowControlKey: "unknown",
      waitListSize: 0,
      rateMax: 1,
      isPinnedRate: true,
    });

    // The spec's two fields only, spelled `waitlistSize` by some answers: read the same way.
    expect(FlowControlInfo.parse({ flowControlKey: "k", waitlistSize: 4 })).toEqual({
      flowControlKey: "k",
      waitListSize: 4,
    });
    emu.emulator.controls.flowControlReport = "documented";
    expect(await alice.flowControl({ token }).get("tenant:42")).toEqual({
      flowControlKey: "tenant:42",
      waitListSize: 17,
    });

    // Global parallelism: a field left out when 0 reads as 0.
    account.queues = {};
    expect(await alice.flowControl({ token }).globalParallelism()).toEqual({
      parallelismMax: 1000,
      parallelismCount: 0,
    });
    account.queues.q = { paused: false, resumes: 0, parallelism: 4 };
    expect(await alice.flowControl({ token }).globalParallelism()).toEqual({
      parallelismMax: 1000,
      parallelismCount: 4,
    });
  });

  test("additions: queue upsert, get, list, pause, delete, and the 412 queue limit", async () => {
    const { id, token } = aliceAccount("eu-central-1");
    const account = seed(id);
    await alice
      .queues({ region: "eu-central-1", token })
      .upsert({ queueName: "orders", parallelism: 3, paused: false });
    expect(await alice.queues({ region: "eu-central-1", token }).get("orders")).toMatchObject({
      name: "orders",
      parallelism: 3,
      paused: false,
      lag: 0,
    });
    await alice.queues({ region: "eu-central-1", token }).upsert({ queueName: "orders", parallelism: 2, paused: true });
    await alice.queues({ region: "eu-central-1", token }).pause("orders"); // pausing a paused queue changes nothing
    expect(await alice.queues({ region: "eu-central-1", token }).get("orders")).toMatchObject({
      parallelism: 2,
      paused: true,
    });
    expect((await alice.queues({ region: "eu-central-1", token }).list()).map((q) => q.name).sort()).toEqual([
      "emails.v1",
      "orders",
    ]);
    await alice.queues({ region: "eu-central-1", token }).delete("orders");
    expect((await failure(alice.queues({ region: "eu-central-1", token }).get("orders"))).status).toBe(404);
    expect((await failure(alice.queues({ region: "eu-central-1", token }).delete("orders"))).status).toBe(404);

    // An upsert without parallelism resets it to 1 (why the client always sends the full state).
    await request(`${emu.regionalMessagingUrl.replace("{region}", "eu-central-1")}/v2/queues`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ queueName: "emails.v1" }),
    }).then((r) => r.body.text());
    expect(account.queues["emails.v1"]).toMatchObject({ parallelism: 1, paused: false });

    account.record.max_queues = 1;
    const full = await failure(
      alice.queues({ region: "eu-central-1", token }).upsert({ queueName: "another", parallelism: 1, paused: false }),
    );
    expect([full.status, full.serviceMessage]).toEqual([412, expect.stringMatching(/queue limit reached/)]);
    await alice
      .queues({ region: "eu-central-1", token })
      .upsert({ queueName: "emails.v1", parallelism: 2, paused: false }); // existing: no new queue
    expect((await failure(alice.queues({ region: "us-east-1", token }).get("emails.v1"))).status).toBe(401);
  });

  test("reads of a key, of all keys and of the global parallelism are answered under the regional address too; a token of another region is refused there, and its account's region named", async () => {
    const { id, token } = aliceAccount("eu-central-1");
    seed(id);
    const eu = alice.flowControl({ region: "eu-central-1", token });
    expect(await eu.get("tenant:42")).toMatchObject({ flowControlKey: "tenant:42", waitListSize: 17 });
    expect((await eu.list()).map((k) => k.flowControlKey)).toContain("tenant:42");
    expect(await eu.globalParallelism()).toBeDefined();
    expect(emu.requests().map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /regional/eu-central-1/v2/flowControl/tenant%3A42",
      "GET /regional/eu-central-1/v2/flowControl",
      "GET /regional/eu-central-1/v2/globalParallelism",
    ]);
    emu.resetLog();
    const err = await failure(alice.flowControl({ region: "us-east-1", token }).get("tenant:42"));
    expect(err).toBeInstanceOf(UnauthorizedError);
    expect(err.serviceMessage).toBe("user not found in this region");
    expect(err.message).toBe(
      "GET /v2/flowControl/tenant%3A42 failed: 401: the token is of an account in eu-central-1, not us-east-1, and a token is valid only in its account's region",
    );
    expect((err as UnauthorizedError).tokenRegion).toBe("eu-central-1");
    // The refused read, then one read at the other region's address: nothing else.
    expect(emu.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "GET /regional/us-east-1/v2/flowControl/tenant%3A42 401",
      "GET /regional/eu-central-1/v2/globalParallelism 200",
    ]);
    // A token valid nowhere is not given a region.
    expect(
      (
        (await failure(
          alice.flowControl({ region: "us-east-1", token: "not-a-token" }).get("tenant:42"),
        )) as UnauthorizedError
      ).tokenRegion,
    ).toBeUndefined();
  });

  test("another user's token cannot see this account's keys", async () => {
    seed(aliceAccount("eu-central-1").id);
    const bobsToken = emu.users[1].accounts.find((a) => a.region === "eu-central-1")!.token;
    expect((await failure(bob.flowControl({ token: bobsToken }).get("tenant:42"))).status).toBe(404);
  });

  test("a path-like key is one percent-encoded segment, never a path", async () => {
    const { token } = aliceAccount("eu-central-1");
    // Each read is one request for one segment, which the service refuses as a key name: not a read of another path.
    for (const key of ["../x", "a/b"]) {
      const refused = await failure(alice.flowControl({ token }).get(key));
      expect([refused.status, refused.serviceMessage]).toEqual([
        400,
        "invalid flow control key: flow control key may contain only letters, digits, '-', '_', '.' and ':'",
      ]);
    }
    expect(emu.requests().map((r) => r.path)).toEqual([
      "/messaging/v2/flowControl/..%2Fx",
      "/messaging/v2/flowControl/a%2Fb",
    ]);
  });
});

describe("retries", () => {
  test("idempotent requests retry 429 (honouring Retry-After), 5xx and dropped connections", async () => {
    emu.addFault({ method: "GET", path: "^/v2/search$", status: 429, retryAfter: 1 });
    emu.addFault({ method: "GET", path: "^/v2/search$", status: 500 });
    emu.addFault({ method: "GET", path: "^/v2/search$", drop: true });
    emu.addFault({ method: "GET", path: "^/v2/search$", status: 502 });
    const started = Date.now();
    await expect(clientFor(settingsFor(emu.users[0], { maxRetries: "5" })).searchIndexes.list()).resolves.toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(emu.requests().map((r) => r.status)).toEqual([429, 500, "dropped", 502, 200]);
  });

  test("budgets, flow control and queue actions retry too", async () => {
    const { id, token } = aliceAccount("us-east-1");
    emu.emulator.data.accounts.find((a) => a.record.id === id)!.keys.k = {
      waitListSize: 0,
      paused: false,
      rateResets: 0,
    };
    emu.addFault({ method: "PATCH", status: 503 });
    emu.addFault({ method: "POST", path: "resetRate$", status: 500 });
    await alice.messagingAccounts.setBudget(id, 100);
    await alice.flowControl({ region: "us-east-1", token }).resetRate("k");
    expect(emu.requests().map((r) => `${r.method} ${r.status}`)).toEqual([
      "PATCH 503",
      "PATCH 200",
      "POST 500",
      "POST 200",
    ]);
  });

  test("the client resends a create on its own only after a 429 (the service says it did not process it)", async () => {
    emu.addFault({ method: "POST", path: "^/v2/search$", status: 429, retryAfter: 1 });
    await alice.searchIndexes.create({ name: "retried", region: "eu-west-1", type: "free" });
    expect(emu.requests().map((r) => r.status)).toEqual([429, 200]);
  });

  test("create is never re-sent after an ambiguous failure, 503 included (a proxy may answer it after a commit)", async () => {
    for (const fault of [
      { status: 500 },
      { status: 503 },
      { commitThenStatus: 503 },
      { drop: true },
      { commitThenDrop: true },
    ]) {
      emu.emulator.reset();
      emu.addFault({ method: "POST", path: "^/v2/search$", ...fault });
      const err = await failure(alice.searchIndexes.create({ name: "once", region: "eu-west-1", type: "free" }));
      expect(err.isAmbiguous).toBe(true);
      expect(emu.requests()).toHaveLength(1);
    }
    expect((await alice.searchIndexes.list()).map((i) => i.name)).toEqual(["once"]); // the commit-then-drop one
  });

  test("set-plan: same id and tokens, the new plan's limits; the same plan again is a no-op; fixed and unknown ids refused", async () => {
    const created = await alice.searchIndexes.create({ name: "plan", region: "eu-west-1", type: "free" });
    await alice.searchIndexes.setPlan(created.id, "payg");
    const after = await alice.searchIndexes.get(created.id);
    expect(after).toMatchObject({
      id: created.id,
      name: "plan",
      token: created.token,
      endpoint: created.endpoint,
      type: "payg",
      max_daily_queries: -1,
    });
    await alice.searchIndexes.setPlan(created.id, "payg");
    expect(emu.requests({ route: "POST /v2/search/:id/setplan" }).map((r) => r.status)).toEqual([200, 200]);
    expect((await failure(alice.searchIndexes.setPlan(created.id, "fixed"))).message).toMatch(
      /400: fixed plan is not available/,
    );
    expect((await failure(bob.searchIndexes.setPlan(created.id, "free"))).status).toBe(404);
  });

  test("exhausted retries end in an error with the last status and the service's text", async () => {
    const impatient = clientFor(settingsFor(emu.users[0], { maxRetries: "1" }));
    emu.addFault({ method: "GET", status: 503, times: 5 });
    const err = await failure(impatient.searchIndexes.list());
    expect([err.status, err.serviceMessage]).toEqual([503, "injected fault"]);
    expect(err.message).toMatch(/retries were exhausted/);
    expect(emu.requests()).toHaveLength(2);
  });

  test("an answer slower than the timeout is a timeout, retried for reads", async () => {
    // undici checks timeouts on a coarse (about half a second) clock: delays well past the limit.
    const quick = clientFor(settingsFor(emu.users[0], { timeoutMs: "300" }));
    emu.addFault({ method: "GET", delayMs: 2000 });
    await expect(quick.searchIndexes.list()).resolves.toEqual([]);
    expect(emu.requests().map((r) => r.status)).toEqual(["abandoned", 200]); // the client gave up on the slow one, then retried
    emu.addFault({ method: "GET", delayMs: 2000, times: 10 });
    const err = await failure(
      clientFor(settingsFor(emu.users[0], { timeoutMs: "300", maxRetries: "1" })).searchIndexes.list(),
    );
    expect(err.status).toBeUndefined();
    expect(err.message).toMatch(/no answer.*UND_ERR_HEADERS_TIMEOUT/);
  });

  test("an answer whose body stalls is resent whole by the same retry policy for reads, never for a create", async () => {
    const quick = clientFor(settingsFor(emu.users[0], { timeoutMs: "300" }));
    emu.addFault({ method: "GET", stallBodyMs: 3000, times: 2 });
    await expect(quick.searchIndexes.list()).resolves.toEqual([]);
    expect(emu.requests().map((r) => r.status)).toEqual(["stalled", "stalled", 200]);

    emu.resetLog();
    emu.addFault({ method: "GET", stallBodyMs: 3000, times: 10 });
    const exhausted = await failure(
      clientFor(settingsFor(emu.users[0], { timeoutMs: "300", maxRetries: "2" })).searchIndexes.list(),
    );
    expect(exhausted.message).toMatch(/no answer.*UND_ERR_BODY_TIMEOUT/);
    expect(emu.requests()).toHaveLength(3); // the first try and maxRetries resends, no more

    emu.emulator.reset();
    emu.addFault({ method: "POST", path: "/v2/search$", stallBodyMs: 3000 });
    const create = await failure(quick.searchIndexes.create({ name: "stalled", region: "eu-west-1", type: "free" }));
    expect(create.message).toMatch(/no answer.*UND_ERR_BODY_TIMEOUT/);
    expect(emu.requests().filter((r) => r.method === "POST")).toHaveLength(1); // committed, maybe: the caller reconciles
  });

  test("the total timeout ends a wait on Retry-After: the operation fails on time, not when the service said", async () => {
    const impatient = clientFor(settingsFor(emu.users[0], { totalTimeoutMs: "1500" }));
    emu.addFault({ method: "GET", status: 429, retryAfter: 20, times: 5 });
    const started = Date.now();
    const err = await failure(impatient.searchIndexes.list());
    expect(err.message).toMatch(/total timeout/);
    expect(Date.now() - started).toBeLessThan(10_000); // the service asked for 20 s
    expect(emu.requests()).toHaveLength(1);
  });

  test("a base URL that refuses connections fails with advice naming mgmt:baseUrl", async () => {
    const nowhere = new MgmtClient(
      resolveSettings(
        (k) =>
          ({
            "mgmt:baseUrl": "http://127.0.0.1:9",
            "mgmt:username": "u",
            "mgmt:password": "p",
            "mgmt:maxRetries": "1",
          })[k],
        {},
      ),
    );
    const err = await failure(nowhere.searchIndexes.list());
    expect(err.message).toMatch(/ECONNREFUSED.*check mgmt:baseUrl/);
  });
});

describe("a service that echoes the password in an encoded form", () => {
  // Quote, backslash, slash and non-ASCII: every JSON encoder escapes some of them its own way.
  const password = 'pässwörd/9"x\\😀';
  const escaped = JSON.stringify(password).slice(1, -1);
  const ascii = escaped.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const bodies: [string, string][] = [
    ["JSON-escaped (JavaScript, Go)", `{"detail":"bad credentials alice:${escaped}"}`],
    ["non-ASCII as \\u escapes (Python's default)", `{"detail":"bad credentials alice:${ascii}"}`],
    [
      "non-ASCII as upper-case \\u escapes",
      `{"detail":"bad ${ascii.replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`)}"}`,
    ],
    ["`/` as `\\/` (PHP's default)", `{"detail":"bad ${ascii.replace(/\//g, "\\/")}"}`],
    ["percent-encoded, as in an echoed form or URL", `{"detail":"body was password=${encodeURIComponent(password)}"}`],
    ["as sent, in a plain-text page", `denied for alice:${password}`],
  ];

  test.each(bodies)("%s: the client's error shows none of it", async (_label, body) => {
    const server = createServer((_req, res) => res.writeHead(401, { "content-type": "application/json" }).end(body));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as AddressInfo;
      const client = new MgmtClient(
        resolveSettings(
          (k) =>
            ({ "mgmt:baseUrl": `http://127.0.0.1:${port}`, "mgmt:username": "alice", "mgmt:password": password })[k],
          {},
        ),
      );
      const err = await failure(client.searchIndexes.list());
      expect(err).toBeInstanceOf(UnauthorizedError);
      expect(err.message).toContain("[redacted]");
      for (const part of ["pässw", "p\\u00e4ssw", "P\\U00E4SSW", "p%C3%A4ssw", '9\\"x', '9"x'])
        expect(err.message.toLowerCase()).not.toContain(part.toLowerCase());
    } finally {
      server.close();
    }
  });
});

describe("the emulator's own robustness and persistence", () => {
  const auth = () => ({ authorization: `Basic ${Buffer.from(`alice:${emu.users[0].password}`).toString("base64")}` });

  test.each([
    ["malformed JSON", '{"name": ', "application/json"],
    ["a JSON array", "[1,2]", "application/json"],
    ["a wrong content type", "name=x", "application/x-www-form-urlencoded"],
    ["a huge body", JSON.stringify({ name: "x".repeat(200_000) }), "application/json"],
  ])("%s gets a 400 with an error body", async (_label, body, type) => {
    const res = await request(`${emu.baseUrl}/v2/search`, {
      method: "POST",
      headers: { ...auth(), "content-type": type },
      body,
    });
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
    const client = new MgmtClient(
      resolveSettings(
        (k) => ({ "mgmt:baseUrl": first.baseUrl, "mgmt:username": user.username, "mgmt:password": user.password })[k],
        {},
      ),
    );
    const created = await client.searchIndexes.create({ name: "durable", region: "eu-west-1", type: "free" });
    await first.close();
    expect(JSON.parse(readFileSync(file, "utf8")).indexes).toHaveLength(1);

    const second = await startEmulator({ dataFile: file });
    const again = new MgmtClient(
      resolveSettings(
        (k) => ({ "mgmt:baseUrl": second.baseUrl, "mgmt:username": user.username, "mgmt:password": user.password })[k],
        {},
      ),
    );
    expect((await again.searchIndexes.get(created.id)).name).toBe("durable");
    expect(second.users[0].password).toBe(user.password);
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a data file of an emulator older than the databases is refused, naming the file, not filled in", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "emu-data-"));
    const file = path.join(dir, "state.json");
    const first = await startEmulator({ dataFile: file });
    await first.close();
    const { databases: _, ...older } = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify(older));
    await expect(startEmulator({ dataFile: file })).rejects.toThrow(
      `emulator data file ${file} has no databases (an older emulator wrote it): delete it, or give another --data file`,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  test("test controls answer over HTTP on loopback: faults, counters, keys", async () => {
    const post = (p: string, body: unknown) =>
      request(`${emu.url}/_emulator${p}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.body.json());
    await post("/faults", { method: "GET", status: 503 });
    await post("/keys", { accountId: aliceAccount("eu-central-1").id, key: "k", waitListSize: 3 });
    await alice.searchIndexes.list();
    expect(await alice.flowControl({ token: aliceAccount("eu-central-1").token }).get("k")).toMatchObject({
      waitListSize: 3,
    });
    const counters = (await (await request(`${emu.url}/_emulator/counters`)).body.json()) as {
      byRoute: Record<string, number>;
      byStatus: Record<string, number>;
    };
    expect(counters.byRoute).toEqual({ "GET /v2/search": 2, "GET /messaging/v2/flowControl/:key": 1 });
    expect(counters.byStatus).toEqual({ "200": 2, "503": 1 });
    expect(await post("/faults", { status: "bad" })).toEqual({ error: expect.stringMatching(/status/) });
  });
});
