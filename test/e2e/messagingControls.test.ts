/**
 * MessagingControls through the real engine against the emulator: every action is counted in
 * the emulator's request log and its effect read from the emulator's state.
 */
import { MessagingControls, getFlowControlOutput, getMessagingAccountOutput } from "../../provider";
import type { MessagingControlsArgs } from "../../provider";
import {
  apiCalls,
  backendContains,
  declaring,
  exported,
  failure,
  testEnv,
  writes,
  type TestEnv,
  freshMessagingAccount,
  diffFields,
} from "../support/harness";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

/** alice's free eu-central-1 account, with two keys and two paused queues. */
function seeded() {
  const { token, account } = freshMessagingAccount(env);
  account.keys["tenant-a"] = { waitListSize: 12, paused: false, rateResets: 0 };
  account.keys["tenant-b"] = { waitListSize: 0, paused: false, rateResets: 0 };
  account.queues["emails"] = { paused: true, resumes: 0 };
  account.queues["reports"] = { paused: true, resumes: 0 };
  return { token, account };
}

function programOf(args: () => MessagingControlsArgs) {
  return async () => {
    let controls: MessagingControls | undefined;
    declaring(() => (controls = new MessagingControls("ops", args())));
    return (
      controls && {
        waitListSizes: controls.waitListSizes,
        keyStates: controls.keyStates,
        queueStates: controls.queueStates,
      }
    );
  };
}

const actions = () => env.emu.requests().filter((r) => r.method === "POST");

test("pause, reset on a new trigger only, resume a queue on a new trigger, lift the pause, and read wait lists", async () => {
  const { token, account } = seeded();
  let args: MessagingControlsArgs = {
    region: "eu-central-1",
    token,
    flowControlKeys: [{ key: "tenant-a", paused: true }, { key: "tenant-b" }],
    queues: [{ name: "emails" }],
  };
  const s = await env.stack({ program: programOf(() => args) });
  const up = await s.up();
  expect(up.outputs.waitListSizes.value).toEqual({ "tenant-a": 12, "tenant-b": 0 });
  expect(up.outputs.keyStates.value["tenant-a"]).toEqual({ paused: true, waitListSize: 12 });
  expect(account.keys["tenant-a"].paused).toBe(true);
  expect(account.keys["tenant-b"].paused).toBe(false);
  expect(account.queues.emails).toEqual({ paused: true, resumes: 0 }); // no trigger: nothing to do
  expect(apiCalls(env.emu)).toEqual({
    "GET /regional/:region/v2/flowControl/:key": 2,
    "POST /regional/:region/v2/flowControl/:key/pause": 1,
    // The new queue reads nothing of its own: one read at the declared region's address checks the token's region.
    "GET /regional/:region/v2/globalParallelism": 1,
    // One accounts list for the run: a key's or queue's identity is the token's account (tokenAccount.ts).
    "GET /v2/messaging/users": 1,
  });

  // Nothing changed: no call at all.
  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 5 });
  expect((await s.up()).summary.resourceChanges).toEqual({ same: 5 });
  expect(env.emu.requests()).toEqual([]);

  // A trigger value resets once; the same value again does nothing.
  args = {
    ...args,
    flowControlKeys: [
      { key: "tenant-a", paused: true },
      { key: "tenant-b", resetRateTrigger: "incident-1" },
    ],
    queues: [{ name: "emails", resumeTrigger: 1 }],
  };
  const preview = await s.stack.preview();
  expect(preview.changeSummary).toEqual({ same: 3, update: 2 });
  // The diff names what the user declared, never a field the provider keeps for itself (`before`).
  expect(diffFields(preview.stdout)).toEqual(["resetRateTrigger", "resumeTrigger"]);
  env.emu.resetLog();
  await s.up();
  expect(actions().map((r) => r.path)).toEqual(
    expect.arrayContaining([
      "/regional/eu-central-1/v2/flowControl/tenant-b/resetRate",
      "/regional/eu-central-1/v2/queues/emails/resume",
    ]),
  );
  expect(actions()).toHaveLength(2);
  expect(account.keys["tenant-b"].rateResets).toBe(1);
  expect(account.queues.emails).toEqual({ paused: false, resumes: 1 });

  env.emu.resetLog();
  await s.up();
  expect(env.emu.requests()).toEqual([]);
  args = {
    ...args,
    flowControlKeys: [
      { key: "tenant-a", paused: true },
      { key: "tenant-b", resetRateTrigger: "incident-2" },
    ],
  };
  env.emu.resetLog();
  await s.up();
  expect(actions().map((r) => r.path)).toEqual(["/regional/eu-central-1/v2/flowControl/tenant-b/resetRate"]);
  expect(account.keys["tenant-b"].rateResets).toBe(2);

  // Wait list sizes follow on refresh; the next up publishes them without any action.
  account.keys["tenant-a"].waitListSize = 99;
  await s.refresh();
  const refreshed = await exported(s, "pulumi-nodejs:dynamic/mgmt:FlowControlKey");
  expect(Object.fromEntries(refreshed.map((r) => [r.outputs!.key, r.outputs!.waitListSize]))).toEqual({
    "tenant-a": 99,
    "tenant-b": 0,
  });
  env.emu.resetLog();
  expect((await s.up()).outputs.waitListSizes.value).toEqual({ "tenant-a": 99, "tenant-b": 0 });
  expect(env.emu.requests()).toEqual([]);

  // paused back to false lifts the pause.
  args = {
    ...args,
    flowControlKeys: [
      { key: "tenant-a", paused: false },
      { key: "tenant-b", resetRateTrigger: "incident-2" },
    ],
  };
  env.emu.resetLog();
  await s.up();
  expect(actions().map((r) => r.path)).toEqual(["/regional/eu-central-1/v2/flowControl/tenant-a/resume"]);
  expect(account.keys["tenant-a"].paused).toBe(false);
});

test("removing a paused key from the stack lifts its pause; destroy leaves queues delivering", async () => {
  const { token, account } = seeded();
  let keys = [
    { key: "tenant-a", paused: true },
    { key: "tenant-b", paused: true },
  ];
  const s = await env.stack({
    program: programOf(() => ({
      region: "eu-central-1",
      token,
      flowControlKeys: keys,
      queues: [{ name: "reports", resumeTrigger: "x" }],
    })),
  });
  await s.up();
  expect([account.keys["tenant-a"].paused, account.keys["tenant-b"].paused]).toEqual([true, true]);
  keys = [{ key: "tenant-b", paused: true }];
  await s.up();
  expect([account.keys["tenant-a"].paused, account.keys["tenant-b"].paused]).toEqual([false, true]);
  await s.destroy();
  expect(account.keys["tenant-b"].paused).toBe(false);
  expect(account.queues.reports.paused).toBe(false);
});

test("the token defaults to mgmt:messagingToken, can come from getMessagingAccountOutput, and is never plain text in state", async () => {
  const { token, account } = seeded();
  const s = await env.stack({
    mgmt: { messagingToken: token },
    program: async () => {
      const fromConfig = new MessagingControls("cfg", {
        region: "eu-central-1",
        flowControlKeys: [{ key: "tenant-a", paused: true }],
      });
      const acct = getMessagingAccountOutput({ region: "eu-central-1", type: "free" });
      const fromAccount = new MessagingControls("acct", {
        region: "eu-central-1",
        token: acct.token,
        flowControlKeys: [{ key: "tenant-b", paused: true }],
      });
      const info = getFlowControlOutput({ key: "tenant-a", token: acct.token });
      return { a: fromConfig.waitListSizes, b: fromAccount.waitListSizes, waitList: info.waitListSize };
    },
  });
  const up = await s.up();
  expect([up.outputs.a.value, up.outputs.b.value, up.outputs.waitList.value]).toEqual([
    { "tenant-a": 12 },
    { "tenant-b": 0 },
    12,
  ]);
  expect([account.keys["tenant-a"].paused, account.keys["tenant-b"].paused]).toEqual([true, true]);
  expect(backendContains(s, [token, env.emu.users[0].password])).toEqual([]);
  await s.destroy();
});

describe("service errors name the key or queue, the action and the answer, and change nothing", () => {
  test.each([
    [
      "an unknown key",
      { flowControlKeys: [{ key: "ghost", paused: true }] },
      /could not read flow control key "ghost" in eu-central-1: the service knows no such key \(404\): a key exists once a message used it, or once a pin created it; give it a pin, or check its name, region and token/,
    ],
    [
      "an unknown queue",
      { queues: [{ name: "ghost", resumeTrigger: 1 }] },
      /could not resume queue "ghost" in eu-central-1: the service answered 404: queue ghost not found/,
    ],
  ])("%s", async (_label, extra, message) => {
    const { token, account } = seeded();
    const before = JSON.stringify(account.keys) + JSON.stringify(account.queues);
    const s = await env.stack({ program: programOf(() => ({ region: "eu-central-1", token, ...extra })) });
    await expect(s.up()).rejects.toThrow(message);
    expect(JSON.stringify(account.keys) + JSON.stringify(account.queues)).toBe(before);
  });
});

test.each([
  [
    "a key",
    { flowControlKeys: [{ key: "tenant-a", paused: true }] },
    `could not read the wait list of flow control key "tenant-a"`,
  ],
  ["a declared queue", { queues: [{ name: "emails", parallelism: 2 }] }, `could not read queue "emails"`],
  [
    "a queue resumed on a trigger",
    { queues: [{ name: "reports", resumeTrigger: 1 }] },
    `could not check the token of queue "reports"`,
  ],
])(
  "a declared region that is not the token's account's (%s): the preview and the up refuse, naming both regions, and nothing is written",
  async (_kind, declared, what) => {
    const { token, account } = seeded();
    const before = JSON.stringify(account.keys) + JSON.stringify(account.queues);
    const s = await env.stack({ program: programOf(() => ({ region: "us-east-1", token, ...declared })) });
    const why = new RegExp(
      `property region value {us-east-1} has a problem: ${what}: it is declared in us-east-1, but the token is of an account in eu-central-1, and a token is valid only in its account's region: declare region "eu-central-1", or give the token of an account in us-east-1`,
    );
    for (const run of [() => s.stack.preview(), () => s.up()]) {
      env.emu.resetLog();
      const failed = await run().then(
        () => undefined,
        (err: Error) => err.message,
      );
      expect(failed).toMatch(why);
      expect(failed).not.toContain(token);
      expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
    }
    expect(JSON.stringify(account.keys) + JSON.stringify(account.queues)).toBe(before);
  },
);

test("bad keys and queue names fail at preview with no API call, each named with its component and field", async () => {
  // One program declares every case as a component of its own: one preview shows them all.
  const CASES: [Record<string, unknown>, RegExp][] = [
    [{ flowControlKeys: [{ key: "" }] }, /key: flow control key must not be empty/],
    [{ flowControlKeys: [{ key: "k".repeat(129) }] }, /key: flow control key must be at most 128 characters/],
    [
      { flowControlKeys: [{ key: "a/b" }] },
      /key: flow control key may contain only letters, digits, '-', '_', '\.' and ':'/,
    ],
    [{ flowControlKeys: [{ key: "../x" }] }, /key: flow control key may contain only/],
    [{ queues: [{ name: "" }] }, /queues\[0\]\.name: queue name must not be empty/],
    [{ queues: [{ name: "ünïcode" }] }, /queues\[0\]\.name: queue name may contain only/],
    [{ region: "eu-west-1" }, /region: Invalid option: expected one of "eu-central-1"\|"us-east-1"/],
    [{ flowControlKeys: [{ key: "k", paused: "yes" }] }, /paused: must be true or false/],
  ];
  const { token } = seeded();
  const s = await env.stack({
    program: async () => {
      CASES.forEach(([extra], i) =>
        declaring(
          () =>
            new MessagingControls(`case-${i}`, {
              region: "eu-central-1",
              token,
              flowControlKeys: [{ key: "tenant-a" }],
              ...extra,
            } as MessagingControlsArgs),
        ),
      );
    },
  });
  env.emu.resetLog();
  const message = await failure(s.stack.preview());
  // The engine's summary, where each error is whole (progress lines are cut to the terminal's width).
  const diagnostics = message.split("Diagnostics:")[1].split("Resources:")[0];
  const said = (i: number) => diagnostics.match(new RegExp(`MessagingControls "case-${i}": [^\\n]*`))?.[0];
  expect(CASES.map(([extra, expected], i) => [extra, said(i)?.match(expected) ? "said" : said(i)])).toEqual(
    CASES.map(([extra]) => [extra, "said"]),
  );
  expect(writes(env.emu)).toBe(0);
  expect(env.emu.requests()).toEqual([]);
});

test("actions are retried through transient faults", async () => {
  const { token, account } = seeded();
  env.emu.addFault({ method: "POST", path: "/pause$", status: 500 });
  env.emu.addFault({ method: "POST", path: "/resetRate$", status: 429, retryAfter: 1 });
  env.emu.addFault({ method: "POST", path: "/queues/", drop: true });
  const s = await env.stack({
    program: programOf(() => ({
      region: "eu-central-1",
      token,
      flowControlKeys: [{ key: "tenant-a", paused: true, resetRateTrigger: 1 }],
      queues: [{ name: "emails", resumeTrigger: 1 }],
    })),
  });
  expect((await s.up()).summary.resourceChanges).toEqual({ create: 4 });
  expect(account.keys["tenant-a"]).toMatchObject({ paused: true, rateResets: 1 });
  expect(account.queues.emails.resumes).toBe(1);
});
