/**
 * Hostile input across every resource, the component and the configuration: each case fails
 * with a clear message, writes nothing when the input is local, and leaves both the service's
 * and the stack's state as they were.
 *
 * Every case runs through the providers without the engine (test/support/providerRun.ts: the
 * program under Pulumi's mocks, then the providers' own check, create and update over HTTP),
 * through both front doors (the dynamic resources' provider modules and the `mgmt` plugin),
 * where each would cost an engine run and add nothing; one case of each kind (an index, a
 * budget, the component, a missing and a wrong setting, a forged token) runs through the real
 * engine too, at `preview` and at `up`.
 */
import type { PulumiFn } from "@pulumi/pulumi/automation";
import { MessagingBudget, MessagingControls, SearchIndex } from "../../provider";
import type { MgmtConfig } from "../../provider/automation";
import { declaring, testEnv, writes, type TestEnv } from "../support/harness";
import { ProviderStack, type FrontDoor } from "../support/providerRun";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
  env.emu.emulator.reset();
  for (const a of env.emu.emulator.data.accounts)
    a.keys["tenant-a"] = { waitListSize: 1, paused: false, rateResets: 0 };
});
afterAll(() => env.cleanup());

const account = () => env.emu.users[0].accounts[0];
const index = (args: Record<string, unknown>) => () =>
  new SearchIndex("bad", { name: "ok", region: "eu-west-1", type: "free", ...args } as never);
const budget = (args: Record<string, unknown>) => () =>
  new MessagingBudget("bad", { accountId: account().id, budget: 100, ...args } as never);
const controls = (args: Record<string, unknown>) => () =>
  new MessagingControls("bad", { region: "eu-central-1", token: account().token, ...args } as never);

/** [label, what the program declares besides the baseline, the message] */
const LOCAL: [string, () => unknown, RegExp][] = [
  ["index: empty name", index({ name: "" }), /name: must not be empty/],
  ["index: a slash in the name", index({ name: "a/b" }), /name: may contain only letters, digits, '-' and '_'/],
  ["index: a path-like name", index({ name: "../x" }), /name: may contain only/],
  ["index: unicode name", index({ name: "índice" }), /name: may contain only/],
  ["index: over-long name", index({ name: "n".repeat(65) }), /name: must be at most 64 characters/],
  ["index: a number as name", index({ name: 42 }), /name: must be a string/],
  [
    "index: unknown region",
    index({ region: "mars-1" }),
    /region: Invalid option: expected one of "eu-west-1"\|"us-central1"/,
  ],
  ["index: a number as region", index({ region: 5 }), /region: Invalid option/],
  ["index: no region", index({ region: undefined }), /region: Invalid option/],
  ["index: unknown type", index({ type: "gold" }), /type: Invalid option: expected one of "free"\|"payg"(?!\|)/],
  ["index: fixed", index({ type: "fixed" }), /type: "fixed" is not currently available; use one of "free", "payg"/],
  ["index: empty adopt", index({ adopt: "" }), /adopt: must not be empty/],
  ["index: a number as adopt", index({ adopt: 7 }), /adopt: Invalid input: expected string/],
  ["budget: negative", budget({ budget: -1 }), /budget: must be 0 \(no limit\) or 20 to 10000/],
  ["budget: 5", budget({ budget: 5 }), /the smallest non-zero budget is 20/],
  ["budget: 19", budget({ budget: 19 }), /the smallest non-zero budget is 20/],
  ["budget: fractional", budget({ budget: 20.5 }), /budget: must be a whole number of dollars/],
  ["budget: above 10000", budget({ budget: 10001 }), /budget: must be 0 \(no limit\) or 20 to 10000/],
  ["budget: a string", budget({ budget: "100" }), /budget: must be a number/],
  ["budget: no budget", budget({ budget: undefined }), /budget: must be a number/],
  ["budget: empty account id", budget({ accountId: "" }), /accountId: must not be empty/],
  ["budget: a number as account id", budget({ accountId: 12 }), /accountId: must be a string/],
  ["controls: empty key", controls({ flowControlKeys: [{ key: "" }] }), /key: flow control key must not be empty/],
  [
    "controls: a slash in a key",
    controls({ flowControlKeys: [{ key: "a/b" }] }),
    /key: flow control key may contain only/,
  ],
  [
    "controls: a path-like key",
    controls({ flowControlKeys: [{ key: "../x" }] }),
    /key: flow control key may contain only/,
  ],
  ["controls: unicode key", controls({ flowControlKeys: [{ key: "ключ" }] }), /key: flow control key may contain only/],
  [
    "controls: over-long key",
    controls({ flowControlKeys: [{ key: "k".repeat(129) }] }),
    /key: flow control key must be at most 128 characters/,
  ],
  [
    "controls: '..' as queue",
    controls({ queues: [{ name: ".." }] }),
    /queues\[0\]\.name: queue name must not be '\.' or '\.\.'/,
  ],
  [
    "controls: a space in a queue name",
    controls({ queues: [{ name: "a b" }] }),
    /queues\[0\]\.name: queue name may contain only/,
  ],
  [
    "controls: a search region",
    controls({ region: "eu-west-1", flowControlKeys: [{ key: "tenant-a" }] }),
    /region: Invalid option: expected one of "eu-central-1"\|"us-east-1"/,
  ],
  [
    "controls: paused as a string",
    controls({ flowControlKeys: [{ key: "tenant-a", paused: "yes" }] }),
    /paused: must be true or false/,
  ],
  [
    "controls: an object as trigger",
    controls({ flowControlKeys: [{ key: "tenant-a", resetRateTrigger: { a: 1 } }] }),
    /resetRateTrigger: must be a string or a number/,
  ],
  [
    "controls: a key listed twice",
    controls({ flowControlKeys: [{ key: "tenant-a" }, { key: "tenant-a" }] }),
    /MessagingControls "bad": flowControlKeys: "tenant-a" is listed twice/,
  ],
  [
    "controls: empty token",
    controls({ token: "", flowControlKeys: [{ key: "tenant-a" }] }),
    /token: must not be empty/,
  ],
  [
    "controls: a pin of nothing",
    controls({ flowControlKeys: [{ key: "tenant-a", pin: {} }] }),
    /flowControlKeys\[0\]\.pin: give parallelism, rate \(per period seconds\) or both/,
  ],
  [
    "controls: a period without a rate",
    controls({ flowControlKeys: [{ key: "tenant-a", pin: { parallelism: 2, period: 60 } }] }),
    /pin\.period: needs rate/,
  ],
  [
    "controls: a rate of 0",
    controls({ flowControlKeys: [{ key: "tenant-a", pin: { rate: 0 } }] }),
    /pin\.rate: must be at least 1/,
  ],
  [
    "controls: a fractional parallelism",
    controls({ flowControlKeys: [{ key: "tenant-a", pin: { parallelism: 1.5 } }] }),
    /pin\.parallelism: must be a whole number/,
  ],
  [
    "controls: an unknown pin field",
    controls({ flowControlKeys: [{ key: "tenant-a", pin: { burst: 3 } }] }),
    /pin: may only have parallelism, rate and period/,
  ],
  [
    "controls: queue parallelism 0",
    controls({ queues: [{ name: "orders", parallelism: 0 }] }),
    /queues\[0\]\.parallelism: must be at least 1/,
  ],
  [
    "controls: queue paused as a string",
    controls({ queues: [{ name: "orders", parallelism: 1, paused: "no" }] }),
    /queues\[0\]\.paused: must be true or false/,
  ],
  [
    "controls: resumeTrigger beside paused",
    controls({ queues: [{ name: "orders", paused: false, resumeTrigger: 1 }] }),
    /queues\[0\]\.resumeTrigger: only for a queue whose state this stack does not declare/,
  ],
];

const anIndex = () => new SearchIndex("one", { name: "config-case", region: "eu-west-1", type: "free" });
const aPause = () =>
  new MessagingControls("ops", {
    region: "eu-central-1",
    token: account().token,
    flowControlKeys: [{ key: "tenant-a", paused: true }],
  });

/**
 * [label, settings that replace the good ones, what the program declares, the message]. Settings
 * that are wrong on their face fail before any request; a wrong password or address can only be
 * found out by asking, and the refused request changes nothing.
 */
const CONFIG: [string, MgmtConfig, () => unknown, RegExp][] = [
  [
    "no password",
    { password: undefined },
    anIndex,
    /mgmt:password is not set \(needed to authenticate to the management API\): run `pulumi config set --secret mgmt:password \.\.\.` or set MGMT_PASSWORD/,
  ],
  ["no username", { username: undefined }, anIndex, /mgmt:username is not set/],
  ["no base URL", { baseUrl: undefined }, anIndex, /mgmt:baseUrl is not set/],
  [
    "a wrong password",
    { password: "wrong-password" },
    anIndex,
    /401: unauthorized: wrong or missing username and password \(check mgmt:username and mgmt:password/,
  ],
  [
    "a base URL that refuses connections",
    { baseUrl: "http://127.0.0.1:9", maxRetries: 1 },
    anIndex,
    /no answer \(ECONNREFUSED; check mgmt:baseUrl/,
  ],
  [
    "a base URL that is not http",
    { baseUrl: "ftp://127.0.0.1" },
    anIndex,
    /mgmt:baseUrl \(or MGMT_BASE_URL\) must be an http:\/\/ or https:\/\/ address/,
  ],
  [
    "a timeout that is not a number",
    { timeoutMs: "soon" },
    anIndex,
    /mgmt:timeoutMs \(or MGMT_TIMEOUT_MS\) must be a whole number/,
  ],
  [
    "a regional URL without {region}",
    { regionalMessagingUrl: "http://127.0.0.1/regional" },
    aPause,
    /must contain the placeholder \{region\}/,
  ],
  // A key is read and acted on at its region's address (contract: regional clients), so that is the address it cannot do without.
  ["no regional messaging URL", { regionalMessagingUrl: undefined }, aPause, /mgmt:regionalMessagingUrl is not set/],
  [
    "a token that is not valid",
    {},
    () =>
      new MessagingControls("ops", {
        region: "eu-central-1",
        token: "forged",
        flowControlKeys: [{ key: "tenant-a", paused: true }],
      }),
    /could not read the wait list of flow control key "tenant-a" in eu-central-1: the service answered 401/,
  ],
];

/** The emulator's data, as JSON: what a refused case must leave as it was. */
function serviceData(): string {
  const data = JSON.parse(JSON.stringify(env.emu.emulator.data));
  for (const i of data.indexes) delete i.record.throughput_vector; // metrics, not state
  return JSON.stringify(data);
}

/** Everything that could change: the emulator's data and the stack's resources. */
async function snapshot(s: Awaited<ReturnType<TestEnv["stack"]>>) {
  // Resources that stand for something in the service: the engine registers its own stack and
  // default provider on any run, and a component whose child failed is an empty grouping.
  const resources = ((await s.stack.exportStack()).deployment.resources ?? [])
    .filter((r: { type: string }) => r.type.startsWith("pulumi-nodejs:dynamic/"))
    .map((r: { urn: string; id?: string; outputs?: unknown }) => [r.urn, r.id, r.outputs]);
  return JSON.stringify({ data: serviceData(), resources });
}

test("the table has at least 30 cases across resources, the component and the configuration", () => {
  expect(LOCAL.length + CONFIG.length).toBeGreaterThanOrEqual(30);
});

describe.each(["dynamic", "plugin"] as FrontDoor[])(
  "every case, through the providers (%s): refused with its message, nothing written, the stack as it was",
  (door) => {
    let stack: ProviderStack;
    const baseline = () => new SearchIndex("baseline", { name: `baseline-${door}`, region: "eu-west-1", type: "free" });
    beforeAll(async () => {
      stack = new ProviderStack(env.mgmt, door);
      await stack.up(baseline);
    });

    test.each(LOCAL)("%s", async (_label, declare, message) => {
      const [data, state] = [serviceData(), JSON.stringify([...stack.state])];
      env.emu.resetLog();
      await expect(
        stack.up(() => {
          baseline();
          declare();
        }),
      ).rejects.toThrow(message);
      expect(writes(env.emu)).toBe(0);
      expect([serviceData(), JSON.stringify([...stack.state])]).toEqual([data, state]);
    });

    test.each(CONFIG)("%s", async (_label, settings, declare, message) => {
      const data = serviceData();
      env.emu.resetLog();
      await expect(new ProviderStack({ ...env.mgmt, ...settings }, door).up(declare)).rejects.toThrow(message);
      expect(
        env.emu.requests().filter((r) => r.method !== "GET" && typeof r.status === "number" && r.status < 400),
      ).toEqual([]);
      expect(serviceData()).toBe(data);
    });
  },
);

/** The cases that also run through the real engine: one of each kind. */
const THROUGH_ENGINE = new Set([
  "index: unknown region",
  "budget: 5",
  "controls: a pin of nothing",
  "controls: a key listed twice",
]);
const CONFIG_THROUGH_ENGINE = new Set(["no password", "a wrong password", "a token that is not valid"]);

describe("one case of each kind through the engine: preview and up refuse it, nothing changed", () => {
  let extra: () => unknown = () => undefined;
  let s: Awaited<ReturnType<TestEnv["stack"]>>;
  const program: PulumiFn = async () => {
    new SearchIndex("baseline", { name: "baseline", region: "eu-west-1", type: "free" });
    declaring(extra);
  };
  beforeAll(async () => {
    s = await env.stack({ stackName: "hostile", program });
    await s.up();
  });

  test.each(LOCAL.filter(([label]) => THROUGH_ENGINE.has(label)))("%s", async (_label, declare, message) => {
    extra = declare;
    const before = await snapshot(s);
    env.emu.resetLog();
    await expect(s.stack.preview()).rejects.toThrow(message);
    await expect(s.up()).rejects.toThrow(message);
    expect(writes(env.emu)).toBe(0);
    expect(await snapshot(s)).toBe(before);
  });

  test.each(CONFIG.filter(([label]) => CONFIG_THROUGH_ENGINE.has(label)))(
    "%s",
    async (label, settings, declare, message) => {
      // Malformed settings fail as the resource is declared (program side, so at preview too): inside
      // Jest, `declaring` reports that as the engine would, instead of Jest claiming the throw.
      const c = await env.stack({
        stackName: `config-${label.replace(/[^a-z]+/gi, "-")}`,
        mgmt: settings,
        program: async () => void declaring(declare),
      });
      const before = await snapshot(c);
      env.emu.resetLog();
      await expect(c.up()).rejects.toThrow(message);
      expect(
        env.emu.requests().filter((r) => r.method !== "GET" && typeof r.status === "number" && r.status < 400),
      ).toEqual([]);
      expect(await snapshot(c)).toBe(before);
    },
  );
});
