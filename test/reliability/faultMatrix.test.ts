/**
 * The fault matrix: every stack operation that talks to the service, under every kind of fault.
 * Each run either ends correctly or fails with a clear message and succeeds when run again;
 * afterwards the service and the stack agree, with no duplicate and no orphaned index.
 */
import type { SearchIndexArgs } from "../../provider";
import { SearchIndex } from "../../provider";
import type { FaultRuleInput } from "../../emulator";
import { exported, testEnv, type TestEnv } from "../support/harness";

const TYPE = "pulumi-nodejs:dynamic/mgmt:SearchIndex";
// Per attempt; the latency fault waits well past it (undici checks timeouts on a coarse clock).
const TIMEOUT_MS = 1000;

type Op = "create" | "rename" | "refresh" | "destroy";
const ROUTES: Record<Op, { method: string; path: string }> = {
  create: { method: "POST", path: "^/v2/search$" },
  rename: { method: "POST", path: "/rename$" },
  refresh: { method: "GET", path: "^/v2/search$" }, // refresh reads one shared list
  destroy: { method: "DELETE", path: "^/v2/search/" },
};
const FAULTS: Record<string, Omit<FaultRuleInput, "method" | "path">> = {
  "429 with Retry-After": { status: 429, retryAfter: 1, times: 2 },
  "500": { status: 500, times: 2 },
  "503": { status: 503, times: 2 },
  "latency beyond the timeout": { delayMs: TIMEOUT_MS * 2.5, times: 2 },
  "a dropped connection": { drop: true, times: 2 },
  "commit, then drop the connection": { commitThenDrop: true, times: 1 },
};

const cases: [Op, string][] = [];
for (const op of Object.keys(ROUTES) as Op[]) {
  for (const fault of Object.keys(FAULTS)) if (fault !== "commit, then drop the connection" || op === "create") cases.push([op, fault]);
}

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

/** The service's indexes and the stack's agree one to one; names are unique. */
async function expectAgreement(s: Awaited<ReturnType<TestEnv["stack"]>>, expectedNames: string[]) {
  const live = await env.client.listSearchIndexes();
  const state = await exported(s, TYPE);
  expect(live.map((i) => i.name).sort()).toEqual([...expectedNames].sort());
  expect(new Set(live.map((i) => i.name)).size).toBe(live.length);
  expect(state.map((r) => r.id).sort()).toEqual(live.map((i) => i.id).sort());
  expect(state.map((r) => r.outputs!.name).sort()).toEqual([...expectedNames].sort());
}

/** Runs an operation; a failure must be clear, and a second run must succeed. */
async function survives(run: () => Promise<unknown>): Promise<"first try" | "after rerun"> {
  try {
    await run();
    return "first try";
  } catch (err) {
    expect((err as Error).message).toMatch(/failed: (\d{3}: |no answer)/);
    await run();
    return "after rerun";
  }
}

test.each(cases)("%s under %s", async (op, fault) => {
  env.emu.emulator.reset();
  const tag = `${op}-${fault}`.replace(/[^a-z0-9]+/gi, "-").slice(0, 40);
  let names = [`${tag}-a`, `${tag}-b`];
  const s = await env.stack({
    stackName: tag,
    mgmt: { timeoutMs: TIMEOUT_MS },
    program: async () => {
      for (const [i, name] of names.entries()) new SearchIndex(`idx${i}`, { name, region: "eu-west-1", type: "free" } as SearchIndexArgs);
    },
  });
  const rule = { ...ROUTES[op], ...FAULTS[fault] };

  if (op === "create") {
    env.emu.addFault(rule);
    await survives(() => s.stack.up());
    await expectAgreement(s, names);
  } else {
    await s.stack.up();
    if (op === "rename") names = names.map((n) => `${n}2`);
    env.emu.addFault(rule);
    if (op === "rename") await survives(() => s.stack.up());
    if (op === "refresh") await survives(() => s.stack.refresh());
    if (op === "destroy") await survives(() => s.stack.destroy());
    // A delayed request still arrives after the client gave up on it: let it land before looking.
    if (fault.startsWith("latency")) await new Promise((r) => setTimeout(r, TIMEOUT_MS * 3));
    await expectAgreement(s, op === "destroy" ? [] : names);
  }
  // The fault really happened (every one of its uses).
  expect(env.emu.requests().filter((r) => r.fault !== undefined)).toHaveLength(FAULTS[fault].times ?? 1);
  // And the stack is usable: a further preview plans nothing.
  if (op !== "destroy") expect((await s.stack.preview()).changeSummary).toEqual({ same: 3 });
});
