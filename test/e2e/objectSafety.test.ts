/**
 * Never destroy or orphan a user's objects (issue 11), through the real engine against the
 * emulator: plan changes in place, the identity guard, collision-free auto-names with recovery of
 * a killed run, ambiguous answers, and messaging state shared between resources or accounts.
 * Each scenario but the auto-names' (which is the engine's random seed's) runs through both front
 * doors (test/support/drivenStack.ts): the engine with the dynamic resources, and the `mgmt`
 * plugin's calls.
 */
import * as pulumi from "@pulumi/pulumi";
import { MessagingBudget, MessagingControls, SearchIndex, type SearchIndexArgs } from "../../provider";
import type { FaultRuleInput } from "../../emulator";
import { frontDoors } from "../support/drivenStack";
import { apiCalls, exported, testEnv, type TestEnv } from "../support/harness";

const INDEX = "pulumi-nodejs:dynamic/mgmt:SearchIndex";
const BUDGET = "pulumi-nodejs:dynamic/mgmt:MessagingBudget";
const KEY = "pulumi-nodejs:dynamic/mgmt:FlowControlKey";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());
beforeEach(() => env.emu.emulator.reset());

const indexes = () => env.client.searchIndexes.list();
const alice = () => env.emu.users[0];
const bob = () => env.emu.users[1];
const aliceIdentity = () => `alice@${env.emu.baseUrl}`;
const account = (
  user: { accounts: { region: string; type: string; id: string; token: string }[] },
  type: "free" | "paid",
) => user.accounts.find((a) => a.region === "eu-central-1" && a.type === type)!;
const emulatedAccount = (id: string) => env.emu.emulator.data.accounts.find((a) => a.record.id === id)!;

test("the service refuses set-plan to fixed, as on create", async () => {
  const created = await env.client.searchIndexes.create({ name: "p", region: "eu-west-1", type: "free" });
  await expect(env.client.searchIndexes.setPlan(created.id, "fixed")).rejects.toThrow(
    /400: fixed plan is not available/,
  );
  await env.client.searchIndexes.setPlan(created.id, "free"); // the current plan again: 200, nothing changes
  expect((await indexes())[0].type).toBe("free");
});

describe.each(frontDoors(() => env))("through %s", (_door, open) => {
  describe("1. a plan change is an in-place update", () => {
    test("free -> payg previews as an update, keeps id, name, endpoint and tokens, and takes the new plan's limits", async () => {
      let type: SearchIndexArgs["type"] = "free";
      const s = await open(() => new SearchIndex("idx", { name: "orders", region: "eu-west-1", type }));
      await s.up();
      const [before] = await indexes();
      expect(before.max_vector_count).toBe(10_000);

      type = "payg";
      expect(await s.preview()).toEqual({ update: 1 });
      env.emu.resetLog();
      expect(await s.up()).toEqual({ update: 1 });
      expect(apiCalls(env.emu)).toEqual({ "POST /v2/search/:id/setplan": 1 });

      const [after] = await indexes();
      expect(after).toMatchObject({
        id: before.id,
        name: "orders",
        type: "payg",
        endpoint: before.endpoint,
        token: before.token,
        max_vector_count: 200_000_000,
      });
      expect(await s.ids(INDEX)).toEqual([before.id]);
      expect((await s.outputs(INDEX))[0]).toMatchObject({ type: "payg", endpoint: before.endpoint });
      expect(await s.preview()).toEqual({ same: 1 });
    });
  });

  describe("2. identity guard", () => {
    test("refresh, up --refresh and destroy as another user fail naming both identities and drop nothing; mgmt:movedFrom releases on purpose", async () => {
      const free = account(alice(), "free");
      const s = await open(() => {
        new SearchIndex("idx", { name: "kept", region: "eu-west-1", type: "free" });
        new MessagingBudget("budget", { accountId: free.id, budget: 50 });
      });
      await s.up();
      const [index] = await indexes();
      expect((await s.outputs(INDEX))[0].managedBy).toBe(aliceIdentity());

      // Same service, another user's credentials: every object answers 404 for bob. (Through the
      // engine a plain refresh or destroy runs with the provider configuration recorded at the
      // last up: these run the program.)
      await s.configure({ username: bob().username, password: bob().password });
      const bobIdentity = `bob@${env.emu.baseUrl}`;
      const mismatch = new RegExp(
        `not found by ${escape(bobIdentity)}, but it is managed by ${escape(aliceIdentity())}: it is kept in the stack`,
      );
      await expect(s.refresh()).rejects.toThrow(mismatch);
      await expect(s.up({ refresh: true })).rejects.toThrow(mismatch);
      await expect(s.destroy()).rejects.toThrow(mismatch);
      expect(await s.ids(INDEX)).toEqual([index.id]);
      expect(await s.ids(BUDGET)).toHaveLength(1);
      expect((await indexes()).map((i) => i.id)).toEqual([index.id]);
      expect(emulatedAccount(free.id).record.budget).toBe(50);

      // The deliberate move: objects bob cannot see are released, left untouched in the service.
      await s.configure({ username: bob().username, password: bob().password, movedFrom: aliceIdentity() });
      await s.refresh();
      expect(await s.ids(INDEX)).toEqual([]);
      expect(await s.ids(BUDGET)).toEqual([]);
      expect((await indexes()).map((i) => i.id)).toEqual([index.id]);
      expect(emulatedAccount(free.id).record.budget).toBe(50);
    });

    test("a 404 under the same identity still drops the object, as deleted outside Pulumi", async () => {
      const s = await open(() => new SearchIndex("idx", { name: "gone", region: "eu-west-1", type: "free" }));
      await s.up();
      await env.client.searchIndexes.delete((await indexes())[0].id);
      await s.refresh();
      expect(await s.ids(INDEX)).toEqual([]);
    });
  });

  describe("4. ambiguous answers", () => {
    const createFaults: FaultRuleInput[] = [
      { commitThenStatus: 500 },
      { commitThenStatus: 502 },
      { commitThenStatus: 503 },
      { commitThenStatus: 504 },
      { commitThenDrop: true },
    ];
    // One up of five creates, each answered with one of the faults (taken in the order the creates
    // arrive): the engine run and the stack are shared, and each fault's answer is in the log.
    test("a create answered 'commit then 500', 502, 503, 504 or 'commit then drop the connection' ends with the index in state exactly once and no error", async () => {
      const names = createFaults.map((_, i) => `committed-${i + 1}`);
      const s = await open(() => {
        for (const name of names) new SearchIndex(name, { name, region: "eu-west-1", type: "free" });
      });
      for (const fault of createFaults) env.emu.addFault({ method: "POST", path: "^/v2/search$", ...fault });
      expect(await s.up()).toEqual({ create: names.length });
      const live = await indexes();
      expect(live.map((i) => i.name).sort()).toEqual(names);
      expect((await s.ids(INDEX)).sort()).toEqual(live.map((i) => i.id).sort());
      // Each looked up, found, not sent again.
      const creates = env.emu.requests({ route: "POST /v2/search" });
      expect(creates.map((r) => String(r.status)).sort()).toEqual(["500", "502", "503", "504", "dropped"]);
      expect(env.emu.requests({ route: "GET /v2/search" }).length).toBeGreaterThanOrEqual(names.length);
    });

    test("rename, set-plan, budget, pause, lift and delete answered 'commit then 503' are resent and take effect once", async () => {
      const free = account(alice(), "free");
      emulatedAccount(free.id).keys["k"] = { waitListSize: 0, paused: false, rateResets: 0 };
      let v = { name: "before", type: "free" as SearchIndexArgs["type"], budget: 40, paused: false };
      const s = await open(() => {
        new SearchIndex("idx", { name: v.name, region: "eu-west-1", type: v.type });
        new MessagingBudget("budget", { accountId: free.id, budget: v.budget });
        new MessagingControls("ops", {
          region: "eu-central-1",
          token: free.token,
          flowControlKeys: [{ key: "k", paused: v.paused }],
        });
      });
      await s.up();
      const [created] = await indexes();

      const commitThen503 = (method: string, path: string) => env.emu.addFault({ method, path, commitThenStatus: 503 });
      commitThen503("POST", "/rename$");
      commitThen503("POST", "/setplan$");
      commitThen503("PATCH", "/update-budget/");
      commitThen503("POST", "/pause$");
      v = { name: "after", type: "payg", budget: 60, paused: true };
      env.emu.resetLog();
      await s.up();
      expect((await indexes()).map((i) => [i.id, i.name, i.type])).toEqual([[created.id, "after", "payg"]]);
      expect(emulatedAccount(free.id).record.budget).toBe(60);
      expect(emulatedAccount(free.id).keys.k.paused).toBe(true);
      const statuses = (route: string) => env.emu.requests({ route }).map((r) => r.status);
      expect(statuses("POST /v2/search/:id/rename")).toEqual([503, 200]);
      expect(statuses("POST /v2/search/:id/setplan")).toEqual([503, 200]);
      expect(statuses("PATCH /v2/messaging/update-budget/:id")).toEqual([503, 200]);
      expect(statuses("POST /regional/:region/v2/flowControl/:key/pause")).toEqual([503, 200]);

      commitThen503("DELETE", "^/v2/search/");
      commitThen503("POST", "/flowControl/k/resume$");
      commitThen503("PATCH", "/update-budget/");
      env.emu.resetLog();
      await s.destroy();
      expect(await indexes()).toEqual([]);
      expect(emulatedAccount(free.id).record.budget).toBe(0);
      expect(emulatedAccount(free.id).keys.k.paused).toBe(false);
      expect(statuses("DELETE /v2/search/:id")).toEqual([503, 404]); // the resend finds it gone: done
    });
  });

  describe("5. shared messaging state", () => {
    test("two MessagingBudgets for one account fail at preview, naming both, with nothing written; up fails too", async () => {
      const free = account(alice(), "free");
      const s = await open(() => {
        new MessagingBudget("team-a", { accountId: free.id, budget: 30 });
        new MessagingBudget("team-b", { accountId: pulumi.output(free.id), budget: 40 });
      });
      const message = new RegExp(
        `MessagingBudget "team-(a|b)" and MessagingBudget "team-(a|b)" both set the budget of messaging account "${free.id}"`,
      );
      env.emu.resetLog();
      await expect(s.preview()).rejects.toThrow(message);
      expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
      expect(emulatedAccount(free.id).record.budget).toBe(0);
      // An up without a preview (the Automation API's) fails too; the budget checked first may
      // have been set by then, the second never is.
      await expect(s.up()).rejects.toThrow(message);
      expect(env.emu.requests({ route: "PATCH /v2/messaging/update-budget/:id" }).length).toBeLessThanOrEqual(1);
      expect(await s.ids(BUDGET)).toHaveLength(
        env.emu.requests({ route: "PATCH /v2/messaging/update-budget/:id" }).length,
      );
    });

    test("a key paused with one mgmt:messagingToken is not silently handed to another account when the token changes", async () => {
      const free = account(alice(), "free");
      const paid = account(alice(), "paid"); // same region, another account, with a key "k" of its own
      emulatedAccount(free.id).keys["k"] = { waitListSize: 3, paused: false, rateResets: 0 };
      emulatedAccount(paid.id).keys["k"] = { waitListSize: 9, paused: false, rateResets: 0 };
      let paused = true;
      const s = await open(
        () => new MessagingControls("ops", { region: "eu-central-1", flowControlKeys: [{ key: "k", paused }] }),
        { mgmt: { messagingToken: free.token } },
      );
      await s.up();
      expect(emulatedAccount(free.id).keys.k.paused).toBe(true);
      const [key] = await s.outputs(KEY);
      expect(key.managedBy).toBe(`account:${free.id}@eu-central-1`);
      expect(JSON.stringify(key)).not.toContain(free.token);

      // The token now belongs to another account of the region, which has a key "k" too: that key
      // is not this one, and acting on it would leave this one paused. Refused, with nothing sent.
      await s.configure({ messagingToken: paid.token });
      paused = false;
      const mismatch = new RegExp(
        `flow control key "k" is managed by account:${free.id}@eu-central-1, but this run would act with account:${paid.id}@eu-central-1: nothing was sent`,
      );
      env.emu.resetLog();
      await expect(s.preview()).rejects.toThrow(mismatch);
      await expect(s.up()).rejects.toThrow(mismatch);
      await expect(s.refresh()).rejects.toThrow(mismatch);
      await expect(s.destroy()).rejects.toThrow(mismatch);
      expect(env.emu.requests().filter((r) => r.path.includes("flowControl"))).toEqual([]);
      expect(emulatedAccount(free.id).keys.k.paused).toBe(true);
      expect(emulatedAccount(paid.id).keys.k).toEqual({ waitListSize: 9, paused: false, rateResets: 0 });
      expect((await s.outputs(KEY))[0].managedBy).toBe(key.managedBy);

      // With the token back, up lifts the pause it set.
      await s.configure({ messagingToken: free.token });
      await s.up();
      expect(emulatedAccount(free.id).keys.k.paused).toBe(false);
    });
  });
});

describe("3. auto-names", () => {
  test("two stacks with the same project and stack name on their own backends get two indexes; destroying one leaves the other", async () => {
    const program = async () => void new SearchIndex("idx", { region: "eu-west-1", type: "free" });
    const mine = await env.stack({ stackName: "dev", projectName: "shared-project", program });
    const theirs = await env.stack({ stackName: "dev", projectName: "shared-project", program });
    expect(mine.backendDir).not.toBe(theirs.backendDir);

    // The preview does not promise a name: up draws it.
    const preview = await mine.stack.preview({ diff: true });
    expect(preview.stdout).toMatch(/ name\s*:\s*\[unknown\]/);
    await mine.up();
    await theirs.up();
    const live = await indexes();
    expect(live).toHaveLength(2);
    expect(live.every((i) => /^idx-[0-9a-f]{8}$/.test(i.name))).toBe(true);
    const [myIndex] = await exported(mine, INDEX);
    const [theirIndex] = await exported(theirs, INDEX);
    expect(myIndex.id).not.toBe(theirIndex.id);

    // The name stays across runs (each run draws a new one; the recorded name wins).
    env.emu.resetLog();
    expect((await mine.up()).summary.resourceChanges).toEqual({ same: 2 });
    expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);

    await mine.destroy();
    expect((await indexes()).map((i) => i.id)).toEqual([theirIndex.id]);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
