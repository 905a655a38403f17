/**
 * Issue 24: a stack acts only on what it declares, and destroy gives back only what it changed,
 * only while its own value is still in place. An operator's incident pause and pin survive a
 * stack that lists the key for something else, a refresh that records them, and destroy; a pin
 * this stack set over an operator's goes back to the operator's value; a budget someone raised
 * after the up is not put back.
 *
 * Every scenario runs through both front doors (test/support/drivenStack.ts): the real engine with
 * the dynamic resources, and the `mgmt` plugin's calls in the engine's order (what YAML, Go, Python
 * and .NET programs reach).
 */
import { MessagingBudget, MessagingControls, SearchIndex } from "../../provider";
import type { MessagingControlsArgs, SearchIndexArgs } from "../../provider";
import { frontDoors } from "../support/drivenStack";
import { freshMessagingAccount, testEnv, type TestEnv } from "../support/harness";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

const controls = (args: () => MessagingControlsArgs) => () => void new MessagingControls("ops", args());
/** POSTs since the last log reset, as "path?query". */
const writeCalls = () =>
  env.emu
    .requests()
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.path.replace("/regional/eu-central-1/v2", "")}${r.query ? `?${r.query}` : ""}`);

describe.each(frontDoors(() => env))("through %s", (_door, open) => {
  test("a key listed only to reset its rate keeps an operator's incident pause and pin through up, refresh and destroy", async () => {
    const { token, account } = freshMessagingAccount(env);
    account.keys["tenant-a"] = { waitListSize: 40, paused: true, rateResets: 0, pinned: { parallelism: 1 } };
    let args: MessagingControlsArgs = {
      region: "eu-central-1",
      token,
      flowControlKeys: [{ key: "tenant-a", resetRateTrigger: "INC-7" }],
    };
    const s = await open(controls(() => args));

    env.emu.resetLog();
    await s.up();
    expect(writeCalls()).toEqual(["POST /flowControl/tenant-a/resetRate"]);
    expect(account.keys["tenant-a"]).toMatchObject({ paused: true, pinned: { parallelism: 1 } });

    // A refresh records the pause and the pin; the next preview has nothing to do, the next up neither.
    await s.refresh();
    expect(await s.preview()).not.toHaveProperty("update");
    args = { ...args, flowControlKeys: [{ key: "tenant-a", resetRateTrigger: "INC-7" }] };
    env.emu.resetLog();
    await s.up();
    expect(writeCalls()).toEqual([]);

    await s.destroy();
    expect(writeCalls()).toEqual([]);
    expect(account.keys["tenant-a"]).toMatchObject({ paused: true, pinned: { parallelism: 1 } });
  });

  test("a pin set over an operator's goes back to the operator's value on destroy, unless someone changed it since; a pause the stack set is lifted only while still in place", async () => {
    const { token, account } = freshMessagingAccount(env);
    account.keys["tenant-b"] = { waitListSize: 0, paused: false, rateResets: 0, pinned: { parallelism: 5 } };
    account.keys["tenant-c"] = { waitListSize: 0, paused: false, rateResets: 0 };
    const args: MessagingControlsArgs = {
      region: "eu-central-1",
      token,
      flowControlKeys: [
        { key: "tenant-b", pin: { parallelism: 2, rate: 10, period: 60 } },
        { key: "tenant-c", paused: true, pin: { rate: 3 } },
      ],
    };
    const s = await open(controls(() => args));
    await s.up();
    expect(account.keys["tenant-b"].pinned).toEqual({ parallelism: 2, rate: 10, period: 60 });
    expect(account.keys["tenant-c"]).toMatchObject({ paused: true, pinned: { rate: 3, period: 1 } });

    // An operator takes tenant-c's rate and lifts its pause after the up: those are theirs now.
    await env.client.flowControl({ region: "eu-central-1", token }).pin("tenant-c", { rate: 9, period: 1 });
    await env.client.flowControl({ region: "eu-central-1", token }).resume("tenant-c");

    env.emu.resetLog();
    await s.destroy();
    // tenant-b: parallelism back to the operator's 5, the rate this stack added unpinned.
    expect(writeCalls().sort()).toEqual([
      "POST /flowControl/tenant-b/pin?parallelism=5",
      "POST /flowControl/tenant-b/unpin?rate=true",
    ]);
    expect(account.keys["tenant-b"].pinned).toEqual({ parallelism: 5 });
    expect(account.keys["tenant-c"]).toMatchObject({ paused: false, pinned: { rate: 9, period: 1 } });
  });

  test("a budget raised by someone else after the up is theirs: destroy leaves it, with or without a refresh between", async () => {
    env.emu.emulator.reset();
    const account = env.emu.emulator.data.accounts.find((a) => a.record.id === env.emu.users[0].accounts[0].id)!;
    account.record.budget = 0;
    for (const refreshFirst of [false, true]) {
      const s = await open(() => new MessagingBudget("budget", { accountId: account.record.id, budget: 100 }));
      await s.up();
      expect(account.record.budget).toBe(100);
      await env.client.messagingAccounts.setBudget(account.record.id, 5000); // finance raises it
      if (refreshFirst) await s.refresh();
      env.emu.resetLog();
      await s.destroy();
      expect(writeCalls()).toEqual([]);
      expect(account.record.budget).toBe(5000);
      account.record.budget = 0;
    }
    // While the stack's own value is in place, destroy gives back the budget it found.
    const s = await open(() => new MessagingBudget("budget", { accountId: account.record.id, budget: 100 }));
    await s.up();
    await s.destroy();
    expect(account.record.budget).toBe(0);
  });

  test("a queue an operator paused before the stack declared it paused stays paused on destroy; one the stack paused is resumed", async () => {
    const { token, account } = freshMessagingAccount(env);
    account.queues["reports"] = { paused: true, resumes: 0, parallelism: 1, createdAt: 1 }; // the operator's pause
    account.queues["emails"] = { paused: false, resumes: 0, parallelism: 1, createdAt: 1 };
    const s = await open(
      controls(() => ({
        region: "eu-central-1",
        token,
        queues: [
          { name: "reports", paused: true },
          { name: "emails", paused: true },
        ],
      })),
    );
    env.emu.resetLog();
    await s.up();
    expect(writeCalls()).toEqual(["POST /queues/emails/pause"]);
    env.emu.resetLog();
    await s.destroy();
    expect(writeCalls()).toEqual(["POST /queues/emails/resume"]);
    expect(account.queues.reports.paused).toBe(true);
    expect(account.queues.emails.paused).toBe(false);
  });

  test("a declared queue whose parallelism is removed shows the change in the preview and is released, never deleted, with its waiting messages", async () => {
    const { token, account } = freshMessagingAccount(env);
    let queues: MessagingControlsArgs["queues"] = [{ name: "orders", parallelism: 3 }];
    const s = await open(controls(() => ({ region: "eu-central-1", token, queues })));
    await s.up();
    expect(account.queues.orders).toMatchObject({ parallelism: 3 });
    account.queues.orders.lag = 1234;

    queues = [{ name: "orders" }];
    expect(await s.preview()).toMatchObject({ update: 1 });
    await s.up();
    await s.destroy();
    expect(account.queues.orders).toMatchObject({ parallelism: 3, lag: 1234 });
  });

  test("a taken-over declared queue gets the settings it was found with back on destroy, unless someone changed them since", async () => {
    const { token, account } = freshMessagingAccount(env);
    account.queues["emails"] = { paused: true, resumes: 0, parallelism: 1, createdAt: 1 };
    account.queues["sms"] = { paused: false, resumes: 0, parallelism: 1, createdAt: 1 };
    const s = await open(
      controls(() => ({
        region: "eu-central-1",
        token,
        queues: [
          { name: "emails", parallelism: 4 },
          { name: "sms", parallelism: 4 },
        ],
      })),
    );
    await s.up();
    expect(account.queues.emails).toMatchObject({ parallelism: 4, paused: false });
    await env.client
      .queues({ region: "eu-central-1", token })
      .upsert({ queueName: "sms", parallelism: 7, paused: false }); // someone's later change
    env.emu.resetLog();
    await s.destroy();
    expect(writeCalls()).toEqual(["POST /queues"]);
    expect(account.queues.emails).toMatchObject({ parallelism: 1, paused: true });
    expect(account.queues.sms).toMatchObject({ parallelism: 7, paused: false });
  });

  test("renaming a component, a budget and an adopted index in code (no aliases) moves them with no write: nothing is unpaused, unpinned, restored or deleted", async () => {
    const { token, account } = freshMessagingAccount(env);
    account.keys["k"] = { waitListSize: 0, paused: false, rateResets: 0 };
    const legacy = await env.client.searchIndexes.create({ name: "legacy", region: "eu-west-1", type: "free" });
    let suffix = "";
    const s = await open(() => {
      new MessagingControls(`ops${suffix}`, {
        region: "eu-central-1",
        token,
        flowControlKeys: [{ key: "k", paused: true, pin: { parallelism: 2 } }],
        queues: [{ name: "jobs", parallelism: 2 }],
      });
      new MessagingBudget(`budget${suffix}`, { accountId: account.record.id, budget: 100 });
      new SearchIndex(`search${suffix}`, { adopt: legacy.id, name: "catalog", region: "eu-west-1", type: "free" });
    });
    await s.up();
    account.queues.jobs.lag = 1234;
    const live = () => ({
      key: account.keys.k,
      queue: account.queues.jobs,
      budget: account.record.budget,
      index: env.emu.emulator.data.indexes.map((i) => i.record.name),
    });
    const before = JSON.parse(JSON.stringify(live()));
    expect(before).toMatchObject({
      key: { paused: true, pinned: { parallelism: 2 } },
      queue: { parallelism: 2 },
      budget: 100,
      index: ["catalog"],
    });

    suffix = "-v2";
    env.emu.resetLog();
    // The key, the queue, the budget and the index: each created under its new name, its old one deleted.
    expect(await s.up()).toEqual({ create: 4, delete: 4 });
    expect(writeCalls()).toEqual([]);
    expect(live()).toEqual(before);

    // The new resources found all this in place, so it is not theirs to give back: destroy leaves it.
    await s.destroy();
    expect(writeCalls()).toEqual([]);
    expect(live()).toEqual(before);
  });

  test("adopt without a name keeps the index's name; a region change fails at preview; destroy releases the index with the name and plan it had", async () => {
    env.emu.emulator.reset();
    const legacy = await env.client.searchIndexes.create({ name: "legacy", region: "eu-west-1", type: "free" });
    let args: SearchIndexArgs = { adopt: legacy.id, region: "eu-west-1", type: "free" };
    const s = await open(() => new SearchIndex("search", args));
    env.emu.resetLog();
    await s.up();
    expect(writeCalls()).toEqual([]);
    expect((await s.outputs("pulumi-nodejs:dynamic/mgmt:SearchIndex"))[0]).toMatchObject({
      name: "legacy",
      adopt: legacy.id,
    });

    args = { ...args, name: "catalog", type: "payg" };
    await s.up();
    expect(await env.client.searchIndexes.get(legacy.id)).toMatchObject({ name: "catalog", type: "payg" });

    args = { ...args, region: "us-central1" };
    await expect(s.preview()).rejects.toThrow(
      /search index "catalog" \(.+\) was adopted in region "eu-west-1": an index cannot move, and an adopted index is never deleted/,
    );
    args = { ...args, region: "eu-west-1" };

    await s.destroy();
    expect(await env.client.searchIndexes.get(legacy.id)).toMatchObject({ name: "legacy", type: "free" });
  });

  test("a create of a name someone else's index has, answered 503, claims nothing: it fails before sending, naming adopt", async () => {
    env.emu.emulator.reset();
    const theirs = await env.client.searchIndexes.create({ name: "orders", region: "eu-west-1", type: "free" });
    env.emu.addFault({ method: "POST", path: "^/v2/search$", status: 503, times: 5 });
    const s = await open(() => new SearchIndex("orders", { name: "orders", region: "eu-west-1", type: "free" }));
    env.emu.resetLog();
    await expect(s.up()).rejects.toThrow(
      /a search index named "orders" already exists and this stack did not create it: set adopt: "orders"/,
    );
    expect(env.emu.requests({ route: "POST /v2/search" })).toEqual([]);
    expect(await s.ids("pulumi-nodejs:dynamic/mgmt:SearchIndex")).toEqual([]);
    await s.destroy();
    expect((await env.client.searchIndexes.list()).map((i) => i.id)).toEqual([theirs.id]);
  });
});
