/**
 * Issue 26: the rest of the service as code, through the real engine: credentials rotated as
 * desired state (SearchIndex and MessagingAccount `tokenRotation`), an account's plan and
 * production pack, database budgets, and the functions that read addresses and statistics.
 */
import {
  DatabaseBudget,
  FlowControlKey,
  MessagingAccount,
  MessagingQueue,
  SearchIndex,
  getDatabasesOutput,
  getFlowControlKeysOutput,
  getMessagingAccountOutput,
  getMessagingAccountStatsOutput,
  getMessagingIpv4AddressesOutput,
  getSearchIndexStatsOutput,
  getSearchStatsOutput,
} from "../../provider";
import type { MessagingAccountArgs } from "../../provider";
import * as pulumi from "@pulumi/pulumi";
import { declaring, exported, failure, freshMessagingAccount, testEnv, type TestEnv } from "../support/harness";

const ACCOUNT = "pulumi-nodejs:dynamic/mgmt:MessagingAccount";
const DATABASE_BUDGET = "pulumi-nodejs:dynamic/mgmt:DatabaseBudget";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

test("a new tokenRotation value replaces the tokens in place, and the key and queue fed from the account's token never send a revoked one", async () => {
  const { info } = freshMessagingAccount(env);
  const seedToken = info.token;
  let rotation = "2026-11-01";
  const s = await env.stack({
    program: async () => {
      const account = new MessagingAccount("acct", { accountId: info.id, tokenRotation: rotation });
      const target = { region: "eu-central-1" as const, token: account.token };
      const key = new FlowControlKey("acme", { ...target, key: "acme", pin: { parallelism: 3 } });
      const queue = new MessagingQueue("jobs", { ...target, name: "jobs", parallelism: 2 });
      const index = new SearchIndex("idx", {
        name: "rotating",
        region: "eu-west-1",
        type: "free",
        tokenRotation: rotation,
      });
      return {
        token: account.token,
        indexToken: index.token,
        indexReadOnly: index.readOnlyToken,
        indexId: index.id,
        key: key.managedBy,
        queue: queue.managedBy,
      };
    },
  });

  // Creating with a value records it and rotates nothing.
  const first = await s.up();
  expect(first.outputs.token).toMatchObject({ value: seedToken, secret: true });
  expect(env.emu.requests().filter((r) => /reset-password|rotate-token/.test(r.route))).toEqual([]);
  const indexBefore = await env.client.searchIndexes.get(first.outputs.indexId.value);
  expect(first.outputs.indexToken.value).toBe(indexBefore.token);
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 5 });

  // A new value: an update of the account and of the index, never a replacement; the key and
  // queue show as updates too, since the token they are fed is not known until the rotation.
  rotation = "INC-4711";
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 1, update: 4 });
  env.emu.resetLog();
  const rotated = await s.up();
  expect(rotated.summary.resourceChanges).toMatchObject({ update: 4, same: 1 }); // account and index rotate; key and queue take the new token

  const live = (await env.client.messagingAccounts.get(info.id)).token;
  expect(live).not.toBe(seedToken);
  expect(rotated.outputs.token.value).toBe(live);
  const indexAfter = await env.client.searchIndexes.get(first.outputs.indexId.value);
  expect(rotated.outputs.indexId.value).toBe(indexBefore.id);
  expect([indexAfter.name, indexAfter.endpoint]).toEqual([indexBefore.name, indexBefore.endpoint]);
  expect(indexAfter.token).not.toBe(indexBefore.token);
  expect(indexAfter.read_only_token).not.toBe(indexBefore.read_only_token);
  expect([rotated.outputs.indexToken.value, rotated.outputs.indexReadOnly.value]).toEqual([
    indexAfter.token,
    indexAfter.read_only_token,
  ]);
  // Each rotated once; nothing answered 401: no request carried a revoked token.
  expect(env.emu.requests().filter((r) => /reset-password|rotate-token/.test(r.route)).length).toBe(2);
  expect(env.emu.requests().filter((r) => r.status === 401)).toEqual([]);
  // The key and queue act with the new token; their identity is the account, which stays (issue 41).
  expect(rotated.outputs.key.value).toBe(rotated.outputs.queue.value);
  expect(rotated.outputs.key.value).toBe(`account:${info.id}@eu-central-1`);
  expect(first.outputs.key.value).toBe(rotated.outputs.key.value);

  // Removing the value does nothing; the same value again does nothing.
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 5 });
  expect((await s.refresh()).summary.resourceChanges).toEqual({ same: 5 });

  // The old token is revoked at once at the service.
  const revoked = await failure(env.client.flowControl({ token: seedToken }).get("acme"));
  expect(revoked).toMatch(/401/);

  // Destroy gives back the pin and deletes the queue, with the new token.
  env.emu.resetLog();
  await s.destroy();
  expect(env.emu.requests().filter((r) => r.status === 401)).toEqual([]);
  await expect(env.client.queues({ region: "eu-central-1", token: live }).get("jobs")).rejects.toThrow(/404|not found/);
});

test("plan and production pack converge, refresh shows drift, free fails at preview, destroy gives the pack back and leaves the plan", async () => {
  const { info } = freshMessagingAccount(env);
  let args: Omit<MessagingAccountArgs, "accountId"> = { plan: "paid", prodPack: true };
  let second = false;
  const s = await env.stack({
    program: async () => {
      declaring(() => {
        new MessagingAccount("acct", { accountId: info.id, ...args });
        if (second) new MessagingAccount("again", { accountId: info.id });
      });
      return {};
    },
  });
  await s.up();
  let record = await env.client.messagingAccounts.get(info.id);
  expect([record.type, record.reserved_type, record.prod_pack_enabled]).toEqual(["paid", "", true]);
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 2 });

  // A fixed tier: the limits are the plan's.
  args = { plan: "fixed_10m", prodPack: true };
  const paidLimit = record.max_requests_per_day;
  await s.up();
  record = await env.client.messagingAccounts.get(info.id);
  expect([record.type, record.reserved_type]).toEqual(["paid", "messaging_fixed_10m"]);
  expect(record.max_requests_per_day).not.toBe(paidLimit);

  // Someone turns the pack off: refresh shows it, the next up turns it on again.
  await env.client.messagingAccounts.setProdPack(info.id, false);
  expect((await s.refresh()).summary.resourceChanges).toMatchObject({ update: 1 });
  expect((await exported(s, ACCOUNT))[0].outputs).toMatchObject({ prodPack: false, plan: "fixed_10m" });
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 1, update: 1 });
  await s.up();
  expect((await env.client.messagingAccounts.get(info.id)).prod_pack_enabled).toBe(true);

  // What the API cannot do fails at preview, saying why; so does a second resource for the account.
  args = { plan: "free" as never };
  expect(await failure(s.stack.preview())).toMatch(
    /"free" cannot be set: the service has no way back to the free plan/,
  );
  args = { plan: "fixed_10m", prodPack: true };
  second = true;
  expect(await failure(s.stack.preview())).toMatch(
    /MessagingAccount "(acct|again)" and MessagingAccount "(acct|again)" both set/,
  );
  second = false;

  await s.destroy();
  record = await env.client.messagingAccounts.get(info.id);
  expect(record.prod_pack_enabled).toBe(false); // as found
  expect(record.reserved_type).toBe("messaging_fixed_10m"); // the plan stays
});

test("a queue renamed in code in the up that rotates its account's token is released, never deleted with the revoked token", async () => {
  const { info } = freshMessagingAccount(env);
  let rotation = "one";
  let queueResource = "jobs";
  const s = await env.stack({
    program: async () => {
      const account = new MessagingAccount("acct", { accountId: info.id, tokenRotation: rotation });
      new MessagingQueue(queueResource, { region: "eu-central-1", token: account.token, name: "jobs", parallelism: 2 });
    },
  });
  await s.up();
  rotation = "two";
  queueResource = "jobs-renamed";
  env.emu.resetLog();
  await s.up();
  expect(env.emu.requests().filter((r) => r.status === 401)).toEqual([]);
  expect(env.emu.requests().filter((r) => r.method === "DELETE")).toEqual([]);
  const token = (await env.client.messagingAccounts.get(info.id)).token;
  expect((await env.client.queues({ region: "eu-central-1", token }).get("jobs")).parallelism).toBe(2);
});

test("a production pack someone else turned on is theirs: declaring it later does not turn it off on destroy", async () => {
  const { info } = freshMessagingAccount(env);
  let args: Omit<MessagingAccountArgs, "accountId"> = { plan: "paid" };
  let accountId = "no-such-account";
  const s = await env.stack({ program: async () => void new MessagingAccount("acct", { accountId, ...args }) });
  // An account that is not there fails the preview already, as the up would.
  expect(await failure(s.stack.preview())).toMatch(
    /messaging account "no-such-account" not found for this user: check accountId/,
  );
  accountId = info.id;
  await s.up();
  await env.client.messagingAccounts.setProdPack(info.id, true); // an operator, not this stack
  args = { plan: "paid", prodPack: true };
  env.emu.resetLog();
  await s.up();
  expect(env.emu.requests().filter((r) => /prodpack/.test(r.route))).toEqual([]); // already in place: nothing sent
  await s.destroy();
  expect((await env.client.messagingAccounts.get(info.id)).prod_pack_enabled).toBe(true);
});

test("DatabaseBudget: checks at preview, sets the budget, refresh shows drift, destroy restores the budget found", async () => {
  env.emu.emulator.reset();
  const [db, other] = (await env.client.databases.list()).map((d) => d.database_id);
  await env.client.databases.setBudget(db, 300); // what the database had before Pulumi
  env.emu.resetLog();
  let budget = 500;
  let twice = false;
  let databaseId = "no-such-database";
  const s = await env.stack({
    program: async () => {
      declaring(() => {
        new DatabaseBudget("cache", { databaseId, budget });
        if (twice) new DatabaseBudget("cache-again", { databaseId, budget });
      });
      return {};
    },
  });
  expect(await failure(s.stack.preview())).toMatch(
    /database "no-such-database" not found for this user: check databaseId/,
  );
  databaseId = db;
  budget = 20000;
  expect(await failure(s.stack.preview())).toMatch(/budget: must be 0 \(no limit\) to 10000/);
  twice = true;
  budget = 500;
  expect(await failure(s.stack.preview())).toMatch(
    /DatabaseBudget "cache(-again)?" and DatabaseBudget "cache(-again)?" both set the budget of database/,
  );
  twice = false;
  expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]); // nothing was sent

  await s.up();
  expect((await env.client.databases.get(db)).budget).toBe(500);
  // `region` says where the database runs: the service's primary_region, not its "global".
  const primary = (await env.client.databases.get(db)).primary_region;
  expect((await exported(s, DATABASE_BUDGET))[0].outputs).toMatchObject({
    databaseId: db,
    budget: 500,
    previousBudget: 300,
    region: primary,
  });
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 2 });

  await env.client.databases.setBudget(db, 900); // out of band
  expect((await s.refresh()).summary.resourceChanges).toMatchObject({ update: 1 });
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 1, update: 1 });
  await s.up();
  expect((await env.client.databases.get(db)).budget).toBe(500);

  await s.destroy();
  expect((await env.client.databases.get(db)).budget).toBe(300);
  expect((await env.client.databases.get(other)).budget).toBe(0); // never touched
});

test("the issue's program: rotate an index's and an account's tokens, set plan and pack, read addresses and statistics, budget a database and pin a brand-new tenant's key, in one up", async () => {
  const { info } = freshMessagingAccount(env);
  const [db] = (await env.client.databases.list()).map((d) => d.database_id);
  await env.client.databases.setBudget(db, 250);
  let rotation = "2026-11-23";
  const s = await env.stack({
    program: async () => {
      const account = new MessagingAccount("acct", {
        accountId: info.id,
        tokenRotation: rotation,
        plan: "paid",
        prodPack: true,
      });
      const index = new SearchIndex("idx", { region: "eu-west-1", type: "free", tokenRotation: rotation });
      new DatabaseBudget("db", { databaseId: db, budget: 600 });
      // A tenant that has never sent a message: its pin creates the key.
      const tenant = new FlowControlKey("tenant", {
        region: "eu-central-1",
        token: account.token,
        key: "tenant-brand-new",
        pin: { parallelism: 4, rate: 20 },
      });
      return {
        accountToken: account.token,
        indexToken: index.token,
        indexId: index.id,
        ipv4: getMessagingIpv4AddressesOutput(),
        searchStats: getSearchStatsOutput(),
        indexStats: getSearchIndexStatsOutput({ id: index.id, period: "1d" }),
        accountStats: getMessagingAccountStatsOutput({ id: info.id, period: "7d" }),
        sameAccount: getMessagingAccountOutput({ id: info.id }),
        // Read after the pin: the token is taken through the key's id.
        keys: getFlowControlKeysOutput({ token: pulumi.all([account.token, tenant.id]).apply(([token]) => token) }),
        databases: getDatabasesOutput(),
      };
    },
  });
  const up = await s.up();
  expect(up.outputs.ipv4.value.addresses.length).toBeGreaterThan(0);
  for (const cidr of up.outputs.ipv4.value.addresses) expect(cidr).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
  expect(Object.keys(up.outputs.searchStats.value).sort()).toEqual([
    "bandwidth",
    "billing",
    "recordCount",
    "request",
    "rerankCount",
    "storage",
  ]);
  // The service's fields, passed through as it gives them (contract "Shapes of those reads").
  expect(up.outputs.indexStats.value).toMatchObject({
    current_vector_count: expect.any(Number),
    monthly_cost: expect.any(Number),
    days: expect.any(Array),
    query_throughput: expect.any(Array),
  });
  expect(up.outputs.accountStats.value).toMatchObject({
    total_monthly_billing: expect.any(Number),
    dlq_message_count: expect.any(Number),
    daily_requests: expect.any(Array),
  });
  expect(up.outputs.databases.value[0]).toMatchObject({
    region: "global",
    primaryRegion: expect.stringMatching(/^(eu-west-1|us-east-1)$/),
  });
  expect(up.outputs.sameAccount.secret).toBe(true); // it carries the tokens
  expect(up.outputs.sameAccount.value.id).toBe(info.id);
  expect(up.outputs.keys.value.map((k: { flowControlKey: string }) => k.flowControlKey)).toContain("tenant-brand-new");
  expect(up.outputs.databases.value.map((d: { databaseId: string }) => d.databaseId)).toContain(db);
  expect((await env.client.databases.get(db)).budget).toBe(600);
  expect(
    (
      await env.client
        .flowControl({ token: (await env.client.messagingAccounts.get(info.id)).token })
        .get("tenant-brand-new")
    ).waitListSize,
  ).toBe(0);

  // Rotate both in one up, each answered 503 after the service committed it: the token is read
  // back and compared, and the rotation is not sent again. Afterwards a preview shows no change.
  rotation = "2026-11-24";
  env.emu.addFault({ method: "POST", path: "/rotate-token/", commitThenStatus: 503 });
  env.emu.addFault({ method: "POST", path: "/reset-password$", commitThenStatus: 503 });
  env.emu.resetLog();
  const again = await s.up();
  expect(
    env.emu
      .requests()
      .filter((r) => /rotate-token|reset-password/.test(r.route))
      .map((r) => r.status),
  ).toEqual([503, 503]);
  // What the stack holds is what the service has now: the one rotation each, not a second.
  const liveAccount = (await env.client.messagingAccounts.get(info.id)).token;
  const liveIndex = (await env.client.searchIndexes.get(again.outputs.indexId.value)).token;
  expect(again.outputs.accountToken.value).toBe(liveAccount);
  expect(again.outputs.indexToken.value).toBe(liveIndex);
  expect([liveAccount, liveIndex]).not.toContain(up.outputs.accountToken.value);
  expect(liveIndex).not.toBe(up.outputs.indexToken.value);
  expect(env.emu.requests().filter((r) => r.status === 401)).toEqual([]);
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 5 });

  await s.destroy();
  const after = await env.client.messagingAccounts.get(info.id);
  expect(after.prod_pack_enabled).toBe(false); // the production pack as found
  expect(after.type).toBe("paid"); // the plan stays
  expect((await env.client.databases.get(db)).budget).toBe(250); // the earlier budget
});
