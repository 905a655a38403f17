/**
 * MessagingBudget and messaging accounts through the real engine against the emulator.
 */
import { MessagingBudget, getMessagingAccountOutput, getMessagingAccountsOutput } from "../../provider";
import type { MessagingBudgetArgs } from "../../provider";
import { apiCalls, backendContains, exported, testEnv, writes, type TestEnv, diffFields } from "../support/harness";

const TYPE = "pulumi-nodejs:dynamic/mgmt:MessagingBudget";

function programOf(spec: () => Record<string, MessagingBudgetArgs>) {
  return async () => {
    const out: Record<string, unknown> = {};
    for (const [name, args] of Object.entries(spec())) {
      const b = new MessagingBudget(name, args);
      out[name] = {
        budget: b.budget,
        previousBudget: b.previousBudget,
        region: b.region,
        state: b.state,
        type: b.type,
      };
    }
    return out;
  };
}

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());
beforeEach(() => env.emu.emulator.reset());

const budgetOf = async (id: string) => (await env.client.messagingAccounts.list()).find((a) => a.id === id)!.budget;
const account = (region = "eu-central-1") => env.emu.users[0].accounts.find((a) => a.region === region)!;

test("up sets the budget; no-op runs make zero calls; a change is one PATCH; refresh reports drift; destroy restores", async () => {
  const id = account().id;
  await env.client.messagingAccounts.setBudget(id, 300); // what the account had before Pulumi
  let budget = 500;
  const s = await env.stack({ program: programOf(() => ({ main: { accountId: id, budget } })) });
  env.emu.resetLog();
  const up = await s.up();
  expect(up.outputs.main.value).toEqual({
    budget: 500,
    previousBudget: 300,
    region: "eu-central-1",
    state: "active",
    type: "free",
  });
  expect(apiCalls(env.emu)).toEqual({ "GET /v2/messaging/users": 1, "PATCH /v2/messaging/update-budget/:id": 1 });
  expect(await budgetOf(id)).toBe(500);

  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 2 });
  expect((await s.up()).summary.resourceChanges).toEqual({ same: 2 });
  expect(env.emu.requests()).toEqual([]);

  budget = 800;
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 1, update: 1 });
  env.emu.resetLog();
  await s.up();
  expect(apiCalls(env.emu)).toEqual({ "PATCH /v2/messaging/update-budget/:id": 1 });
  expect(await budgetOf(id)).toBe(800);

  await env.client.messagingAccounts.setBudget(id, 1200); // out of band
  const refresh = await s.refresh();
  expect(refresh.summary.resourceChanges).toMatchObject({ update: 1 });
  expect((await exported(s, TYPE))[0].outputs).toMatchObject({ budget: 1200, previousBudget: 300 });
  const back = await s.stack.preview();
  expect(back.changeSummary).toEqual({ same: 1, update: 1 }); // back to 800 on up
  // Only the declared budget: not `resourceName` or `before`, which the refresh did not record.
  expect(diffFields(back.stdout)).toEqual(["budget"]);
  await s.up();
  expect(await budgetOf(id)).toBe(800);

  await s.destroy();
  expect(await budgetOf(id)).toBe(300);
});

test("a change of account replaces: the new account gets the budget, the old one gets its own back", async () => {
  const [a, b] = [account("eu-central-1").id, account("us-east-1").id];
  let accountId = a;
  const s = await env.stack({ program: programOf(() => ({ main: { accountId, budget: 100 } })) });
  await s.up();
  accountId = b;
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 1, replace: 1 });
  await s.up();
  expect([await budgetOf(a), await budgetOf(b)]).toEqual([0, 100]);
});

test("refresh drops a budget whose account was deleted, and one whose account vanished", async () => {
  const [a, , c] = env.emu.users[0].accounts.map((x) => x.id);
  const b = env.emu.emulator.addAccount("alice", "us-east-1").record.id;
  const s = await env.stack({
    program: programOf(() => ({
      a: { accountId: a, budget: 50 },
      b: { accountId: b, budget: 60 },
      c: { accountId: c, budget: 70 },
    })),
  });
  await s.up();
  env.emu.emulator.data.accounts.find((x) => x.record.id === a)!.record.deletion_time = 1700000000;
  env.emu.emulator.data.accounts = env.emu.emulator.data.accounts.filter((x) => x.record.id !== b);
  const refresh = await s.refresh();
  expect(refresh.summary.resourceChanges).toMatchObject({ delete: 2 });
  expect((await exported(s, TYPE)).map((r) => r.id)).toEqual([c]);
});

// Bad budgets and account ids (-1, 5, 19, 20.5, 10001, a string, an empty id): every case in
// test/reliability/hostileInput.test.ts, through the providers, and a budget of 5 through the
// engine at preview and up.
describe("budgets at the edges, and an unknown account", () => {
  test("0, 20 and 10000 are accepted", async () => {
    const ids = env.emu.users[0].accounts.map((x) => x.id);
    const s = await env.stack({
      program: programOf(() => ({
        a: { accountId: ids[0], budget: 0 },
        b: { accountId: ids[1], budget: 20 },
        c: { accountId: ids[2], budget: 10000 },
      })),
    });
    await s.up();
    expect([await budgetOf(ids[0]), await budgetOf(ids[1]), await budgetOf(ids[2])]).toEqual([0, 20, 10000]);
  });

  test("an unknown account is a clear error naming the id, from the preview on, and nothing is written", async () => {
    const s = await env.stack({ program: programOf(() => ({ bad: { accountId: "no-such-account", budget: 100 } })) });
    env.emu.resetLog();
    const unknown = /messaging account "no-such-account" not found for this user: check accountId/;
    await expect(s.stack.preview()).rejects.toThrow(unknown);
    await expect(s.up()).rejects.toThrow(unknown);
    expect(writes(env.emu)).toBe(0);
  });
});

test("refreshing 50 budgets lists the accounts at most twice", async () => {
  const ids = Array.from(
    { length: 50 },
    (_, i) => env.emu.emulator.addAccount("alice", i % 2 ? "us-east-1" : "eu-central-1").record.id,
  );
  const s = await env.stack({
    program: programOf(() => Object.fromEntries(ids.map((id, i) => [`b${i}`, { accountId: id, budget: 20 + i }]))),
  });
  await s.up();
  env.emu.resetLog();
  const refresh = await s.refresh();
  expect(refresh.summary.resourceChanges).toEqual({ same: 51 });
  expect(apiCalls(env.emu)["GET /v2/messaging/users"]).toBeLessThanOrEqual(2);
  expect(writes(env.emu)).toBe(0);
});

test("tokens from getMessagingAccounts are secrets in state", async () => {
  const s = await env.stack({
    program: async () => {
      const accounts = getMessagingAccountsOutput();
      const eu = getMessagingAccountOutput({ region: "eu-central-1", type: "paid" });
      return { accounts, euToken: eu.token, euId: eu.id, count: accounts.apply((a) => a.length) };
    },
  });
  const up = await s.up();
  expect(up.outputs.euToken.secret).toBe(true);
  expect(up.outputs.accounts.secret).toBe(true);
  const tokens = env.emu.users[0].accounts.map((a) => a.token);
  expect(tokens).toContain(up.outputs.euToken.value);
  expect(backendContains(s, tokens)).toEqual([]);
});

test("faults (429, 503, dropped connection) during up and refresh complete correctly", async () => {
  const [a, b] = env.emu.users[0].accounts.map((x) => x.id);
  const s = await env.stack({
    program: programOf(() => ({ a: { accountId: a, budget: 40 }, b: { accountId: b, budget: 50 } })),
  });
  env.emu.addFault({ method: "GET", path: "/v2/messaging/users", status: 429, retryAfter: 1 });
  env.emu.addFault({ method: "PATCH", status: 503 });
  env.emu.addFault({ method: "PATCH", drop: true });
  expect((await s.up()).summary.resourceChanges).toEqual({ create: 3 });
  expect([await budgetOf(a), await budgetOf(b)]).toEqual([40, 50]);
  env.emu.addFault({ method: "GET", path: "/v2/messaging/users", drop: true });
  env.emu.addFault({ method: "GET", path: "/v2/messaging/users", status: 503 });
  const refresh = await s.refresh();
  expect(refresh.summary.resourceChanges).toEqual({ same: 3 });
});
