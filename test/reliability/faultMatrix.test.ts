/**
 * The fault matrix: every operation the provider makes, under every kind of fault, must succeed
 * in ONE run. The emulator's request log then shows, for every faulted request, that it was
 * retried (or, for a create, reconciled by a lookup) and that its effect happened exactly as
 * often as the retry table in provider/api/endpoints.ts allows.
 *
 * One stack per fault holds a search index, a budget, a paused flow control key with a reset
 * trigger and pinned limits, a queue with a resume trigger, a declared queue and a paused one, and a
 * URL group whose endpoint changes.
 * Each phase (create, update, refresh, destroy) puts the fault once on every route that phase
 * uses, then runs once.
 *
 * The grid runs through the providers without the engine (test/support/providerRun.ts: the
 * program under Pulumi's mocks, the providers' own check, create, diff, update, read and delete
 * over HTTP, a fresh provider process per phase), where 40 engine runs would add nothing, through
 * both front doors: the dynamic resources' provider modules and the `mgmt` plugin's gRPC calls; the
 * ambiguous fault (the connection dropped after the commit: a create reconciled by a lookup, a
 * delete that finds its object gone) runs every phase through the real engine too, and so does
 * one definite 4xx.
 */
import { MessagingBudget, MessagingControls, SearchIndex, UrlGroup, type SearchIndexArgs } from "../../provider";
import type { MgmtConfig } from "../../provider/automation";
import type { FaultRuleInput, LoggedRequest } from "../../emulator";
import { exported, testEnv, type TestEnv, freshMessagingAccount } from "../support/harness";
import { ProviderStack, type FrontDoor } from "../support/providerRun";

const INDEX = "pulumi-nodejs:dynamic/mgmt:SearchIndex";
// The client's timeout per attempt under the faults of a late answer, which wait well past it.
const TIMEOUT_MS = 1000;
// Under every other fault: an answer that came is never given up on, so a provider process
// starved of CPU on a busy machine (2 cores, engine runs beside) cannot resend a request the
// service carried out and count its action twice (seen once in CI: a queue upserted twice under 502).
const PATIENT_MS = 60_000;

interface Fault {
  rule: Omit<FaultRuleInput, "method" | "path">;
  /** Whether the service carried the request out before failing it. */
  committed: boolean;
}
const timeoutFor = (fault: Fault) => (fault.rule.delayAfterMs || fault.rule.stallBodyMs ? TIMEOUT_MS : PATIENT_MS);
const FAULTS: Record<string, Fault> = {
  "429 with Retry-After": { rule: { status: 429, retryAfter: 1 }, committed: false },
  "500": { rule: { status: 500 }, committed: false },
  "502": { rule: { status: 502 }, committed: false },
  "503": { rule: { status: 503 }, committed: false },
  "504": { rule: { status: 504 }, committed: false },
  "connection dropped before processing": { rule: { drop: true }, committed: false },
  "connection dropped after commit": { rule: { commitThenDrop: true }, committed: true },
  "commit, then 503": { rule: { commitThenStatus: 503 }, committed: true },
  "header timeout after commit": { rule: { delayAfterMs: TIMEOUT_MS * 2.5 }, committed: true },
  "stalled body after commit": { rule: { stallBodyMs: TIMEOUT_MS * 2.5 }, committed: true },
};

/** Every request the provider makes, by the route the emulator logs it under. */
const R = {
  createIndex: { method: "POST", path: "^/v2/search$", route: "POST /v2/search" },
  listIndexes: { method: "GET", path: "^/v2/search$", route: "GET /v2/search" },
  getIndex: { method: "GET", path: "^/v2/search/[^/]+$", route: "GET /v2/search/:id" },
  rename: { method: "POST", path: "/rename$", route: "POST /v2/search/:id/rename" },
  setPlan: { method: "POST", path: "/setplan$", route: "POST /v2/search/:id/setplan" },
  deleteIndex: { method: "DELETE", path: "^/v2/search/", route: "DELETE /v2/search/:id" },
  listAccounts: { method: "GET", path: "^/v2/messaging/users$", route: "GET /v2/messaging/users" },
  budget: { method: "PATCH", path: "/update-budget/", route: "PATCH /v2/messaging/update-budget/:id" },
  waitList: { method: "GET", path: "/v2/flowControl/[^/]+$", route: "GET /regional/:region/v2/flowControl/:key" },
  pause: {
    method: "POST",
    path: "/flowControl/[^/]+/pause$",
    route: "POST /regional/:region/v2/flowControl/:key/pause",
  },
  lift: {
    method: "POST",
    path: "/flowControl/[^/]+/resume$",
    route: "POST /regional/:region/v2/flowControl/:key/resume",
  },
  resetRate: { method: "POST", path: "/resetRate$", route: "POST /regional/:region/v2/flowControl/:key/resetRate" },
  resumeQueue: {
    method: "POST",
    path: "/queues/[^/]+/resume$",
    route: "POST /regional/:region/v2/queues/:queue/resume",
  },
  pin: { method: "POST", path: "/flowControl/[^/]+/pin$", route: "POST /regional/:region/v2/flowControl/:key/pin" },
  unpin: {
    method: "POST",
    path: "/flowControl/[^/]+/unpin$",
    route: "POST /regional/:region/v2/flowControl/:key/unpin",
  },
  upsertQueue: { method: "POST", path: "/v2/queues$", route: "POST /regional/:region/v2/queues" },
  getQueue: { method: "GET", path: "/v2/queues/[^/]+$", route: "GET /regional/:region/v2/queues/:queue" },
  pauseQueue: { method: "POST", path: "/queues/[^/]+/pause$", route: "POST /regional/:region/v2/queues/:queue/pause" },
  deleteQueue: { method: "DELETE", path: "/v2/queues/", route: "DELETE /regional/:region/v2/queues/:queue" },
  addEndpoints: {
    method: "POST",
    path: "/v2/topics/[^/]+/endpoints$",
    route: "POST /regional/:region/v2/topics/:group/endpoints",
  },
  removeEndpoints: {
    method: "DELETE",
    path: "/v2/topics/[^/]+/endpoints$",
    route: "DELETE /regional/:region/v2/topics/:group/endpoints",
  },
  getGroup: { method: "GET", path: "/v2/topics/[^/]+$", route: "GET /regional/:region/v2/topics/:group" },
  deleteGroup: { method: "DELETE", path: "/v2/topics/[^/]+$", route: "DELETE /regional/:region/v2/topics/:group" },
} as const;
type Route = keyof typeof R;

const PHASES: Record<"create" | "update" | "refresh" | "destroy", Route[]> = {
  create: [
    "createIndex",
    "listAccounts",
    "budget",
    "waitList",
    "pause",
    "resetRate",
    "resumeQueue",
    "pin",
    "upsertQueue",
    "pauseQueue",
    "addEndpoints",
  ],
  update: [
    "rename",
    "setPlan",
    "budget",
    "lift",
    "resetRate",
    "resumeQueue",
    "pin",
    "unpin",
    "upsertQueue",
    "addEndpoints",
    "removeEndpoints",
  ],
  refresh: ["listIndexes", "listAccounts", "waitList", "getQueue", "getGroup"],
  destroy: ["deleteIndex", "budget", "unpin", "deleteQueue", "deleteGroup"],
};

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

function seeded() {
  const { info, account } = freshMessagingAccount(env);
  account.keys["k"] = { waitListSize: 7, paused: false, rateResets: 0 };
  account.queues["q"] = { paused: true, resumes: 0 };
  account.queues["pq"] = { paused: false, resumes: 0 };
  return { info, account };
}

/**
 * For each faulted route of a phase: the fault fired once, and a later request of the same route
 * succeeded (a create whose request may have committed is reconciled by a lookup instead).
 */
function expectRetried(routes: Route[], fault: Fault, log: LoggedRequest[]): void {
  for (const name of routes) {
    const { route } = R[name];
    const faulted = log.filter((r) => r.route === route && r.fault !== undefined);
    expect({ route, faulted: faulted.length }).toEqual({ route, faulted: 1 });
    const after = log.filter((r) => r.seq > faulted[0].seq);
    if (name === "createIndex" && (fault.committed || faulted[0].status === "dropped")) {
      // Looked up by name before anything else; sent again only if absent.
      expect(after.some((r) => r.route === R.listIndexes.route && r.status === 200)).toBe(true);
      expect(after.filter((r) => r.route === route && r.status === 200)).toHaveLength(fault.committed ? 0 : 1);
    } else {
      // A delete resent after its commit finds the index gone (404): that is its success.
      const done = (r: LoggedRequest) =>
        r.status === 200 ||
        (["deleteIndex", "deleteQueue", "deleteGroup"].includes(name) && fault.committed && r.status === 404);
      expect({ route, retried: after.some((r) => r.route === route && done(r)) }).toEqual({ route, retried: true });
    }
  }
}

/** A stack as the tests drive it: through the real engine, or through the providers alone. */
interface Door {
  up(): Promise<unknown>;
  refresh(): Promise<unknown>;
  destroy(): Promise<unknown>;
  ids(type: string): Promise<(string | undefined)[]>;
  outputs(type: string): Promise<Record<string, unknown>[]>;
}
type Opening = (name: string, mgmt: MgmtConfig, program: () => void) => Promise<Door>;

const engine: Opening = async (name, mgmt, program) => {
  const s = await env.stack({ stackName: name, mgmt, program: async () => program() });
  return {
    up: () => s.up(),
    refresh: () => s.refresh(),
    destroy: () => s.destroy(),
    ids: async (type) => (await exported(s, type)).map((r) => r.id),
    outputs: async (type) => (await exported(s, type)).map((r) => r.outputs as Record<string, unknown>),
  };
};

/** Through the providers without the engine: the dynamic resources' modules, or the `mgmt` plugin. */
const providers =
  (door: FrontDoor): Opening =>
  async (_name, mgmt, program) => {
    const s = new ProviderStack({ ...env.mgmt, ...mgmt }, door);
    return {
      up: () => s.up(program),
      refresh: () => s.refresh(),
      destroy: () => s.destroy(),
      ids: async (type) => s.ids(type),
      outputs: async (type) => s.outputs(type),
    };
  };
const DOORS: FrontDoor[] = ["dynamic", "plugin"];

async function everyOperation(faultName: string, open: Opening): Promise<void> {
  const fault = FAULTS[faultName];
  const { info, account } = seeded();
  let v = {
    name: "matrix",
    type: "free" as SearchIndexArgs["type"],
    budget: 30,
    paused: true,
    trigger: "one",
    pin: { parallelism: 2, rate: 10 } as { parallelism: number; rate?: number },
    parallelism: 2,
    queuePaused: true,
    hook: "https://a.example.com",
  };
  const s = await open(faultName.replace(/[^a-z0-9]+/gi, "-"), { timeoutMs: timeoutFor(fault) }, () => {
    new SearchIndex("idx", { name: v.name, region: "eu-west-1", type: v.type });
    new MessagingBudget("budget", { accountId: info.id, budget: v.budget });
    new MessagingControls("ops", {
      region: "eu-central-1",
      token: info.token,
      flowControlKeys: [{ key: "k", paused: v.paused, resetRateTrigger: v.trigger, pin: v.pin }],
      queues: [
        { name: "q", resumeTrigger: v.trigger },
        { name: "dq", parallelism: v.parallelism },
        { name: "pq", paused: v.queuePaused },
      ],
    });
    new UrlGroup("hooks", { region: "eu-central-1", token: info.token, name: "hooks", endpoints: [{ url: v.hook }] });
  });
  // A resend after a commit repeats a counted action once more (harmless by the retry table).
  const perAction = fault.committed ? 2 : 1;
  const run = async (phase: keyof typeof PHASES, op: () => Promise<unknown>) => {
    env.emu.resetLog();
    for (const name of PHASES[phase]) env.emu.addFault({ method: R[name].method, path: R[name].path, ...fault.rule });
    await op(); // one run: a failure here fails the case
    // A request the client gave up on is logged when its late answer is due: wait for it before looking at the log.
    await env.emu.settled();
    expectRetried(PHASES[phase], fault, env.emu.requests());
  };

  await run("create", () => s.up());
  let live = await env.client.searchIndexes.list();
  expect(live.map((i) => [i.name, i.type])).toEqual([["matrix", "free"]]);
  expect(await s.ids(INDEX)).toEqual([live[0].id]);
  expect(account.record.budget).toBe(30);
  // A pin resets the rate counter too: one reset and one pin, each repeated once after a commit.
  expect(account.keys.k).toMatchObject({
    waitListSize: 7,
    paused: true,
    rateResets: 2 * perAction,
    pins: perAction,
    pinned: { parallelism: 2, rate: 10, period: 1 },
  });
  expect(account.queues.q).toMatchObject({ paused: false, resumes: perAction });
  expect(account.queues.dq).toMatchObject({ parallelism: 2, paused: false, upserts: perAction });
  expect(account.queues.pq.paused).toBe(true);
  // Adding a URL already in the group changes nothing: a resend after a commit leaves one endpoint.
  expect(account.topics.hooks.endpoints).toEqual([{ url: "https://a.example.com" }]);

  v = {
    name: "matrix-renamed",
    type: "payg",
    budget: 60,
    paused: false,
    trigger: "two",
    pin: { parallelism: 3 },
    parallelism: 4,
    queuePaused: true,
    hook: "https://b.example.com",
  };
  await run("update", () => s.up());
  live = await env.client.searchIndexes.list();
  expect(live.map((i) => [i.name, i.type])).toEqual([["matrix-renamed", "payg"]]);
  expect((await s.outputs(INDEX))[0]).toMatchObject({ name: "matrix-renamed", type: "payg" });
  expect(account.record.budget).toBe(60);
  expect(account.keys.k).toMatchObject({
    waitListSize: 7,
    paused: false,
    rateResets: 4 * perAction,
    pins: 2 * perAction,
    pinned: { parallelism: 3 },
  });
  expect(account.queues.q.resumes).toBe(2 * perAction);
  expect(account.queues.dq).toMatchObject({ parallelism: 4, upserts: 2 * perAction });
  expect(account.topics.hooks.endpoints).toEqual([{ url: "https://b.example.com" }]);

  account.keys.k.waitListSize = 9;
  await run("refresh", () => s.refresh());
  expect((await s.outputs("pulumi-nodejs:dynamic/mgmt:FlowControlKey"))[0].waitListSize).toBe(9);
  expect(await s.ids(INDEX)).toEqual([live[0].id]);

  await run("destroy", () => s.destroy());
  expect(await env.client.searchIndexes.list()).toEqual([]);
  expect(account.record.budget).toBe(0);
  expect(await s.ids(INDEX)).toEqual([]);
  expect(account.keys.k.pinned).toBeUndefined();
  expect(account.queues.dq).toBeUndefined();
  expect(account.queues.pq.paused).toBe(false);
  expect(account.topics.hooks).toBeUndefined();
}

describe.each(DOORS)("through the providers, %s", (door) => {
  test.each(Object.keys(FAULTS))("every operation succeeds in one run under: %s", (faultName) =>
    everyOperation(faultName, providers(door)),
  );
});

test("every operation succeeds in one run under: connection dropped after commit (through the engine)", () =>
  everyOperation("connection dropped after commit", engine));

describe("a definite 4xx is not retried and fails fast, naming the object and the answer", () => {
  type Part = "index" | "budget" | "controls" | "urlGroup";
  const CASES: [string, Part, FaultRuleInput, string, RegExp][] = [
    [
      "rename answered 400",
      "index",
      { method: "POST", path: "/rename$", status: 400 },
      R.rename.route,
      /search index "fast" \([^)]+\).*400: injected fault/,
    ],
    [
      "set-plan answered 403",
      "index",
      { method: "POST", path: "/setplan$", status: 403 },
      R.setPlan.route,
      /search index "fast" \([^)]+\).*403: injected fault/,
    ],
    [
      "budget answered 400",
      "budget",
      { method: "PATCH", path: "/update-budget/", status: 400 },
      R.budget.route,
      /budget of messaging account "[^"]+" could not be set to 50.*400: injected fault/,
    ],
    [
      "pause answered 400",
      "controls",
      { method: "POST", path: "/pause$", status: 400 },
      R.pause.route,
      /could not pause flow control key "k" in eu-central-1: the service answered 400: injected fault/,
    ],
    [
      "URL group add answered 412 (the account's limits)",
      "urlGroup",
      { method: "POST", path: "/v2/topics/[^/]+/endpoints$", status: 412 },
      R.addEndpoints.route,
      /could not add endpoints to URL group "g" in eu-central-1: the service answered 412: injected fault.*max_topics.*max_endpoints_per_topic/,
    ],
  ];
  const fastFails = async ([label, part, rule, route, message]: (typeof CASES)[number], open: Opening) => {
    const { info } = seeded();
    let changed = false;
    const s = await open(`fast-${label.replace(/[^a-z0-9]+/gi, "-")}`, {}, () => {
      const renaming = changed && label.startsWith("rename");
      const replanning = changed && label.startsWith("set-plan");
      if (part === "index")
        new SearchIndex("idx", {
          name: renaming ? "fast-renamed" : "fast",
          region: "eu-west-1",
          type: replanning ? "payg" : "free",
        });
      if (part === "budget") new MessagingBudget("budget", { accountId: info.id, budget: changed ? 50 : 30 });
      if (part === "controls")
        new MessagingControls("ops", {
          region: "eu-central-1",
          token: info.token,
          flowControlKeys: [{ key: "k", paused: changed }],
        });
      if (part === "urlGroup")
        new UrlGroup("g", {
          region: "eu-central-1",
          token: info.token,
          name: "g",
          endpoints: [{ url: "https://a.example.com" }, ...(changed ? [{ url: "https://b.example.com" }] : [])],
        });
    });
    await s.up();
    changed = true;
    env.emu.resetLog();
    env.emu.addFault({ ...rule, times: 5 });
    await expect(s.up()).rejects.toThrow(message);
    expect(env.emu.requests({ route })).toHaveLength(1);
    expect(env.emu.requests({ route })[0].status).toBe(rule.status);
    env.emu.emulator.controls.clearFaults();
  };
  describe.each(DOORS)("through the providers, %s", (door) => {
    test.each(CASES)("%s", (...c) => fastFails(c, providers(door)));
  });
  test("pause answered 400 (through the engine)", () => fastFails(CASES[3], engine));
});
