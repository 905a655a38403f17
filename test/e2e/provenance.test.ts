/**
 * Issue 24: a stack acts only on what it declares, and destroy gives back only what it changed,
 * only while its own value is still in place. An operator's incident pause and pin survive a
 * stack that lists the key for something else, a refresh that records them, and destroy; a pin
 * this stack set over an operator's goes back to the operator's value; a budget someone raised
 * after the up is not put back.
 */
import { MessagingBudget, MessagingControls } from "../../provider";
import type { MessagingControlsArgs } from "../../provider";
import { declaring, freshMessagingAccount, testEnv, type TestEnv } from "../support/harness";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

const program = (args: () => MessagingControlsArgs) => async () => {
  declaring(() => new MessagingControls("ops", args()));
};
/** POSTs since the last log reset, as "path?query". */
const writeCalls = () => env.emu.requests().filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.replace("/regional/eu-central-1/v2", "")}${r.query ? `?${r.query}` : ""}`);

test("a key listed only to reset its rate keeps an operator's incident pause and pin through up, refresh and destroy", async () => {
  const { token, account } = freshMessagingAccount(env);
  account.keys["tenant-a"] = { waitListSize: 40, paused: true, rateResets: 0, pinned: { parallelism: 1 } };
  let args: MessagingControlsArgs = { region: "eu-central-1", token, flowControlKeys: [{ key: "tenant-a", resetRateTrigger: "INC-7" }] };
  const s = await env.stack({ program: program(() => args) });

  env.emu.resetLog();
  await s.stack.up();
  expect(writeCalls()).toEqual(["POST /flowControl/tenant-a/resetRate"]);
  expect(account.keys["tenant-a"]).toMatchObject({ paused: true, pinned: { parallelism: 1 } });

  // A refresh records the pause and the pin; the next preview has nothing to do, the next up neither.
  await s.stack.refresh();
  expect((await s.stack.preview()).changeSummary).not.toHaveProperty("update");
  args = { ...args, flowControlKeys: [{ key: "tenant-a", resetRateTrigger: "INC-7" }] };
  env.emu.resetLog();
  await s.stack.up();
  expect(writeCalls()).toEqual([]);

  await s.stack.destroy();
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
  const s = await env.stack({ program: program(() => args) });
  await s.stack.up();
  expect(account.keys["tenant-b"].pinned).toEqual({ parallelism: 2, rate: 10, period: 60 });
  expect(account.keys["tenant-c"]).toMatchObject({ paused: true, pinned: { rate: 3, period: 1 } });

  // An operator takes tenant-c's rate and lifts its pause after the up: those are theirs now.
  await env.client.pinFlowControl("eu-central-1", "tenant-c", { rate: 9, period: 1 }, token);
  await env.client.resumeFlowControl("eu-central-1", "tenant-c", token);

  env.emu.resetLog();
  await s.stack.destroy();
  // tenant-b: parallelism back to the operator's 5, the rate this stack added unpinned.
  expect(writeCalls().sort()).toEqual(["POST /flowControl/tenant-b/pin?parallelism=5", "POST /flowControl/tenant-b/unpin?rate=true"]);
  expect(account.keys["tenant-b"].pinned).toEqual({ parallelism: 5 });
  expect(account.keys["tenant-c"]).toMatchObject({ paused: false, pinned: { rate: 9, period: 1 } });
});

test("a budget raised by someone else after the up is theirs: destroy leaves it, with or without a refresh between", async () => {
  env.emu.emulator.reset();
  const account = env.emu.emulator.data.accounts.find((a) => a.record.id === env.emu.users[0].accounts[0].id)!;
  account.record.budget = 0;
  for (const refreshFirst of [false, true]) {
    const s = await env.stack({ program: async () => void declaring(() => new MessagingBudget("budget", { accountId: account.record.id, budget: 100 })) });
    await s.stack.up();
    expect(account.record.budget).toBe(100);
    await env.client.updateBudget(account.record.id, 5000); // finance raises it
    if (refreshFirst) await s.stack.refresh();
    env.emu.resetLog();
    await s.stack.destroy();
    expect(writeCalls()).toEqual([]);
    expect(account.record.budget).toBe(5000);
    account.record.budget = 0;
  }
  // While the stack's own value is in place, destroy gives back the budget it found.
  const s = await env.stack({ program: async () => void declaring(() => new MessagingBudget("budget", { accountId: account.record.id, budget: 100 })) });
  await s.stack.up();
  await s.stack.destroy();
  expect(account.record.budget).toBe(0);
});

test("a queue an operator paused before the stack declared it paused stays paused on destroy; one the stack paused is resumed", async () => {
  const { token, account } = freshMessagingAccount(env);
  account.queues["reports"] = { paused: true, resumes: 0, parallelism: 1, createdAt: 1 }; // the operator's pause
  account.queues["emails"] = { paused: false, resumes: 0, parallelism: 1, createdAt: 1 };
  const s = await env.stack({ program: program(() => ({ region: "eu-central-1", token, queues: [{ name: "reports", paused: true }, { name: "emails", paused: true }] })) });
  env.emu.resetLog();
  await s.stack.up();
  expect(writeCalls()).toEqual(["POST /queues/emails/pause"]);
  env.emu.resetLog();
  await s.stack.destroy();
  expect(writeCalls()).toEqual(["POST /queues/emails/resume"]);
  expect(account.queues.reports.paused).toBe(true);
  expect(account.queues.emails.paused).toBe(false);
});

test("a declared queue whose parallelism is removed shows the change in the preview and is released, never deleted, with its waiting messages", async () => {
  const { token, account } = freshMessagingAccount(env);
  let queues: MessagingControlsArgs["queues"] = [{ name: "orders", parallelism: 3 }];
  const s = await env.stack({ program: program(() => ({ region: "eu-central-1", token, queues })) });
  await s.stack.up();
  expect(account.queues.orders).toMatchObject({ parallelism: 3 });
  account.queues.orders.lag = 1234;

  queues = [{ name: "orders" }];
  expect((await s.stack.preview()).changeSummary).toMatchObject({ update: 1 });
  await s.stack.up();
  await s.stack.destroy();
  expect(account.queues.orders).toMatchObject({ parallelism: 3, lag: 1234 });
});
