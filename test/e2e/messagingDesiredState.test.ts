/**
 * Flow control and queues as desired state (pinned limits, pause drift, declared queues, the read
 * functions), through the real engine against the emulator. What the service holds is read from
 * the emulator's state; what was sent, from its request log (with query strings).
 */
import * as pulumi from "@pulumi/pulumi";
import { MessagingControls, getGlobalParallelismOutput, getQueueOutput, getQueuesOutput } from "../../provider";
import type { MessagingControlsArgs } from "../../provider";
import { backendContains, declaring, exported, testEnv, type TestEnv, freshMessagingAccount } from "../support/harness";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

/** alice's free eu-central-1 account: one key carrying its own limits, one queue publishers made. */
function seeded() {
  const { token, account } = freshMessagingAccount(env);
  account.keys["tenant-a"] = {
    waitListSize: 3,
    paused: false,
    rateResets: 0,
    carried: { parallelism: 10, rate: 500, period: 1 },
  };
  account.queues["emails"] = { paused: false, resumes: 0, parallelism: 2, createdAt: 1 };
  return { token, account };
}

function programOf(args: () => MessagingControlsArgs) {
  return async () => {
    let controls: MessagingControls | undefined;
    declaring(() => (controls = new MessagingControls("ops", args())));
    return controls && { keyStates: controls.keyStates, queueStates: controls.queueStates };
  };
}

/** POSTs, DELETEs and PATCHes since the last log reset, as "path?query". */
const writeCalls = () =>
  env.emu
    .requests()
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.path.replace("/regional/eu-central-1/v2", "")}${r.query ? `?${r.query}` : ""}`);

test("a pinned rate and a declared queue converge in one up; no-op preview calls nothing; outside changes show in refresh and what is declared is undone; destroy unpins and deletes what it created", async () => {
  const { token, account } = seeded();
  let args: MessagingControlsArgs = {
    region: "eu-central-1",
    token,
    flowControlKeys: [{ key: "tenant-a", pin: { parallelism: 2, rate: 10, period: 60 } }],
    queues: [
      { name: "orders", parallelism: 3 },
      { name: "emails", paused: true },
    ],
  };
  const s = await env.stack({ program: programOf(() => args) });

  // One up converges: one pin with every part, one upsert with the full state, one pause.
  env.emu.resetLog();
  const up = await s.up();
  expect(writeCalls().sort()).toEqual([
    "POST /flowControl/tenant-a/pin?parallelism=2&rate=10&period=60",
    "POST /queues",
    "POST /queues/emails/pause",
  ]);
  expect(account.keys["tenant-a"]).toMatchObject({
    pinned: { parallelism: 2, rate: 10, period: 60 },
    pins: 1,
    paused: false,
  });
  expect(account.queues.orders).toMatchObject({ parallelism: 3, paused: false });
  expect(account.queues.emails.paused).toBe(true);
  expect(up.outputs.keyStates.value["tenant-a"]).toEqual({
    paused: false,
    waitListSize: 3,
    pin: { parallelism: 2, rate: 10, period: 60 },
  });
  // emails is read before its pause (a pause found in place is not this stack's): its lag comes along.
  expect(up.outputs.queueStates.value).toEqual({
    orders: { parallelism: 3, paused: false },
    emails: { paused: true, lag: 0 },
  });

  // Nothing changed: the preview and the up make no API call at all.
  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 5 });
  expect((await s.up()).summary.resourceChanges).toEqual({ same: 5 });
  expect(env.emu.requests()).toEqual([]);

  // Someone changes things outside Pulumi: unpins the rate, pauses the key, shrinks the queue, resumes the other.
  await env.client.flowControl({ region: "eu-central-1", token }).unpin("tenant-a", { rate: true });
  await env.client.flowControl({ region: "eu-central-1", token }).pause("tenant-a");
  await env.client
    .queues({ region: "eu-central-1", token })
    .upsert({ queueName: "orders", parallelism: 1, paused: false });
  await env.client.queues({ region: "eu-central-1", token }).resume("emails");

  // Refresh records what the service reports; the next preview shows three resources to change back.
  await s.refresh();
  const key = (await exported(s, "pulumi-nodejs:dynamic/mgmt:FlowControlKey"))[0].outputs!;
  expect([key.paused, key.pin]).toEqual([true, { parallelism: 2 }]);
  const queues = Object.fromEntries(
    (await exported(s, "pulumi-nodejs:dynamic/mgmt:MessagingQueue")).map((r) => [r.outputs!.queue, r.outputs!]),
  );
  expect([queues.orders.parallelism, queues.emails.paused]).toEqual([1, false]);
  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 2, update: 3 });
  expect(env.emu.requests()).toEqual([]);

  // The next up undoes what the stack declares, re-pinning only the rate (the parallelism pin
  // never left). The pause is not declared: it is the operator's, and stays (issue 24).
  env.emu.resetLog();
  await s.up();
  expect(writeCalls().sort()).toEqual([
    "POST /flowControl/tenant-a/pin?rate=10&period=60",
    "POST /queues",
    "POST /queues/emails/pause",
  ]);
  expect(account.keys["tenant-a"]).toMatchObject({ pinned: { parallelism: 2, rate: 10, period: 60 }, paused: true });
  expect([account.queues.orders.parallelism, account.queues.emails.paused]).toEqual([3, true]);

  // A changed value re-pins that value only; a removed part is unpinned; nothing else is sent.
  args = { ...args, flowControlKeys: [{ key: "tenant-a", pin: { parallelism: 4, rate: 10, period: 60 } }] };
  env.emu.resetLog();
  await s.up();
  expect(writeCalls()).toEqual(["POST /flowControl/tenant-a/pin?parallelism=4"]);
  args = { ...args, flowControlKeys: [{ key: "tenant-a", pin: { parallelism: 4 } }] };
  env.emu.resetLog();
  await s.up();
  expect(writeCalls()).toEqual(["POST /flowControl/tenant-a/unpin?rate=true"]);
  expect(account.keys["tenant-a"].pinned).toEqual({ parallelism: 4 });

  // A declared queue's parallelism change is one upsert carrying the full state.
  args = {
    ...args,
    queues: [
      { name: "orders", parallelism: 5, paused: true },
      { name: "emails", paused: true },
    ],
  };
  await s.up();
  expect(account.queues.orders).toMatchObject({ parallelism: 5, paused: true });

  // Destroy: the key unpinned (the operator's pause left), the created queue gone, the publishers' queue running and kept.
  await s.destroy();
  expect(account.keys["tenant-a"]).toMatchObject({ paused: true });
  expect(account.keys["tenant-a"].pinned).toBeUndefined();
  expect(account.queues.orders).toBeUndefined();
  expect(account.queues.emails).toMatchObject({ paused: false, parallelism: 2 });
  expect(backendContains(s, [token])).toEqual([]);
});

test("a brand-new tenant's key that never carried a message: its pin creates it, then it is paused, in one up; no change after; destroy gives back what it set", async () => {
  const { token, account } = freshMessagingAccount(env);
  const s = await env.stack({
    program: programOf(() => ({
      region: "eu-central-1",
      token,
      flowControlKeys: [{ key: "acme", pin: { parallelism: 2, rate: 10 }, paused: true }],
    })),
  });
  env.emu.resetLog();
  const up = await s.up();
  expect(writeCalls()).toEqual([
    "POST /flowControl/acme/pin?parallelism=2&rate=10&period=1",
    "POST /flowControl/acme/pause",
  ]);
  expect(account.keys.acme).toMatchObject({
    waitListSize: 0,
    paused: true,
    pinned: { parallelism: 2, rate: 10, period: 1 },
  });
  expect(up.outputs.keyStates.value.acme).toMatchObject({
    paused: true,
    waitListSize: 0,
    pin: { parallelism: 2, rate: 10, period: 1 },
  });
  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).not.toHaveProperty("update");
  expect(writeCalls()).toEqual([]);
  await s.destroy();
  expect(account.keys.acme.paused).toBe(false);
  expect(account.keys.acme.pinned ?? {}).toEqual({});
});

test("a service that reports only flowControlKey and waitListSize: pins still converge, refresh keeps the recorded state", async () => {
  const { token, account } = seeded();
  env.emu.emulator.controls.flowControlReport = "documented";
  const s = await env.stack({
    program: programOf(() => ({
      region: "eu-central-1",
      token,
      flowControlKeys: [{ key: "tenant-a", paused: true, pin: { rate: 5 } }],
    })),
  });
  await s.up();
  expect(account.keys["tenant-a"]).toMatchObject({ paused: true, pinned: { rate: 5, period: 1 } });
  account.keys["tenant-a"].waitListSize = 42;
  await s.refresh();
  const key = (await exported(s, "pulumi-nodejs:dynamic/mgmt:FlowControlKey"))[0].outputs!;
  expect([key.waitListSize, key.paused, key.pin]).toEqual([42, true, { rate: 5, period: 1 }]);
  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 3 });
  expect(env.emu.requests()).toEqual([]);
  await s.destroy();
  expect(account.keys["tenant-a"].paused).toBe(false);
  expect(account.keys["tenant-a"].pinned).toBeUndefined();
});

test("a pin found in place is adopted without a pin call and left in place on destroy", async () => {
  const { token, account } = seeded();
  account.keys["tenant-a"].pinned = { parallelism: 2 };
  const s = await env.stack({
    program: programOf(() => ({
      region: "eu-central-1",
      token,
      flowControlKeys: [{ key: "tenant-a", pin: { parallelism: 2 } }],
    })),
  });
  env.emu.resetLog();
  await s.up();
  expect(writeCalls()).toEqual([]);
  await s.destroy();
  expect(account.keys["tenant-a"].pinned).toEqual({ parallelism: 2 });
});

test("declared queues: one that exists is taken into the declared state but kept on destroy; a 404 on refresh drops it; the 412 limit is explained", async () => {
  const { token, account } = seeded();
  let queues: MessagingControlsArgs["queues"] = [{ name: "emails", parallelism: 4 }];
  const s = await env.stack({ program: programOf(() => ({ region: "eu-central-1", token, queues })) });
  await s.up();
  expect(account.queues.emails).toMatchObject({ parallelism: 4, paused: false });
  expect((await exported(s, "pulumi-nodejs:dynamic/mgmt:MessagingQueue"))[0].outputs!.created).toBe(false);

  // Deleted outside Pulumi: refresh drops it (same token, so the 404 is believed); up declares it anew.
  delete account.queues.emails;
  await s.refresh();
  expect(await exported(s, "pulumi-nodejs:dynamic/mgmt:MessagingQueue")).toEqual([]);
  await s.up();
  expect(account.queues.emails).toMatchObject({ parallelism: 4 });
  expect((await exported(s, "pulumi-nodejs:dynamic/mgmt:MessagingQueue"))[0].outputs!.created).toBe(true);

  // The account's queue limit: the error names the queue, the 412 and what to do.
  account.record.max_queues = Object.keys(account.queues).length;
  queues = [...queues, { name: "overflow", parallelism: 1 }];
  await expect(s.up()).rejects.toThrow(
    /could not create or update queue "overflow" in eu-central-1: the service answered 412: queue limit reached.*max_queues/,
  );
  expect(account.queues.overflow).toBeUndefined();

  queues = [{ name: "emails", parallelism: 4 }];
  await s.destroy();
  expect(account.queues.emails).toBeUndefined();
});

test("getQueues, getQueue and getGlobalParallelism read through the program; the token stays secret", async () => {
  const { token, account } = seeded();
  account.queues.orders = { paused: true, resumes: 0, parallelism: 3, lag: 7, createdAt: 1 };
  const s = await env.stack({
    program: async () => {
      const secretToken = pulumi.secret(token);
      return {
        names: getQueuesOutput({ region: "eu-central-1", token: secretToken }).apply((qs) =>
          qs.map((q) => q.name).sort(),
        ),
        orders: getQueueOutput({ region: "eu-central-1", name: "orders", token: secretToken }),
        global: getGlobalParallelismOutput({ token: secretToken }),
      };
    },
  });
  const up = await s.up();
  expect(up.outputs.names.value).toEqual(["emails", "orders"]);
  expect(up.outputs.orders.value).toMatchObject({ name: "orders", parallelism: 3, lag: 7, paused: true });
  expect(up.outputs.global.value).toEqual({ parallelismMax: 1000, parallelismCount: 2 });
  expect(up.outputs.orders.secret).toBe(true);
  expect(backendContains(s, [token])).toEqual([]);
});
