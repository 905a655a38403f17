/**
 * An up cancelled half way converges after refresh and up; one up of 200 indexes survives a
 * service that rate-limits it hard.
 */
import { readFileSync } from "node:fs";
import type { SearchIndexArgs } from "../../provider";
import { MessagingBudget, MessagingControls, SearchIndex } from "../../provider";
import { recoverPendingCreates } from "../../provider/automation";
import { declaring, exported, freshMessagingAccount, testEnv, type TestEnv } from "../support/harness";
import { commandLine, descendantsOf, parentPids } from "../support/processes";

const TYPE = "pulumi-nodejs:dynamic/mgmt:SearchIndex";
let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());
beforeEach(() => env.emu.emulator.reset());

function indexesProgram(count: number, named: (i: number) => boolean) {
  return async () => {
    for (let i = 0; i < count; i++) {
      const args: SearchIndexArgs = { region: i % 2 ? "us-central1" : "eu-west-1", type: "free" };
      if (named(i)) args.name = `named-${i}`;
      new SearchIndex(`idx-${i}`, args);
    }
  };
}

/**
 * SIGKILL to this test's own `pulumi` child: among the descendants of this Jest worker (walked
 * by parent PID in /proc), the ones whose command line matches. Never another process of the
 * machine, such as a developer's own `pulumi up`.
 */
function killOwnChild(pattern: RegExp): number[] {
  const parentOf = parentPids();
  const killed = descendantsOf(process.pid, parentOf).filter((pid) => pattern.test(commandLine(pid)));
  // Their dynamic provider processes, found before they die (then they are nobody's children).
  providersOfKilled = killed.flatMap((pid) =>
    descendantsOf(pid, parentOf).filter((child) => /dynamic-provider/.test(commandLine(child))),
  );
  for (const pid of killed) process.kill(pid, "SIGKILL");
  return killed;
}

/** The dynamic provider processes of the CLI `killOwnChild` killed last. */
let providersOfKilled: number[] = [];
const alive = (pid: number) => {
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
};

async function expectExactly(s: Awaited<ReturnType<TestEnv["stack"]>>, count: number) {
  const live = await env.client.searchIndexes.list();
  expect(live).toHaveLength(count);
  expect(new Set(live.map((i) => i.name)).size).toBe(count);
  expect((await exported(s, TYPE)).map((r) => r.id).sort()).toEqual(live.map((i) => i.id).sort());
}

test("an up of 20 indexes cancelled while 4 creates are in flight converges to exactly 20 after refresh and up", async () => {
  // Every create waits at the emulator's gate: the cancel lands while exactly the first 4
  // (parallel 4) are in flight, and they go through only once the CLI says it is cancelling.
  env.emu.addFault({ method: "POST", path: "^/v2/search$", hold: true, times: 20 });
  const s = await env.stack({ stackName: "interrupted", program: indexesProgram(20, (i) => i % 2 === 0) });
  const abort = new AbortController();
  let cancelling: () => void = () => undefined;
  const cancelSeen = new Promise<void>((resolve) => (cancelling = resolve));
  const up = s
    .up({ signal: abort.signal, parallel: 4, onOutput: (out) => /cancelling/i.test(out) && cancelling() })
    .then(
      () => "finished",
      () => "cancelled",
    );
  await env.emu.emulator.controls.heldRequests(4);
  abort.abort();
  await cancelSeen;
  env.emu.emulator.controls.openGate();
  expect(await up).toBe("cancelled");
  // A graceful cancel lets the in-flight creates finish and schedules nothing more.
  expect(env.emu.emulator.data.indexes).toHaveLength(4);
  expect((await exported(s, TYPE)).map((r) => r.id).sort()).toEqual(
    env.emu.emulator.data.indexes.map((i) => i.record.id).sort(),
  );

  await s.refresh({ clearPendingCreates: true });
  await s.up();
  await expectExactly(s, 20);
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 21 });
});

test("after a hard kill of the CLI mid-up, recoverPendingCreates imports the indexes it left behind and up converges without a duplicate", async () => {
  // Every create commits at once but answers late: killing the CLI now leaves indexes that
  // exist in the service and only as pending creates in the state.
  env.emu.addFault({ method: "POST", path: "^/v2/search$", delayAfterMs: 5000, times: 12 });
  const s = await env.stack({ stackName: "hardkill", program: indexesProgram(12, () => false) });
  const up = s.up({ parallel: 4 }).then(
    () => "finished",
    () => "killed",
  );
  let killed: number[] = [];
  await new Promise<void>((resolve) => {
    const watcher = setInterval(() => {
      if (env.emu.emulator.data.indexes.length >= 4) {
        clearInterval(watcher);
        // SIGKILL: no graceful cancel, no final checkpoint.
        killed = killOwnChild(/pulumi up .*--stack hardkill/);
        resolve();
      }
    }, 20);
  });
  expect(await up).toBe("killed");
  expect(killed).toHaveLength(1);
  // The killed CLI's provider process stops by itself (provider/engineWatch.ts): it was waiting
  // for late answers, and nothing of a run that is over may send anything more.
  expect(providersOfKilled.length).toBeGreaterThan(0);
  for (let i = 0; i < 100 && providersOfKilled.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
  expect(providersOfKilled.filter(alive)).toEqual([]);
  env.emu.emulator.controls.clearFaults();
  const leftBehind = env.emu.emulator.data.indexes.length;
  expect(leftBehind).toBeGreaterThanOrEqual(4);
  expect(await exported(s, TYPE)).toEqual([]);

  // The recovery a user runs: release the killed run's lock, import what its pending creates
  // made (found by the names Pulumi recorded), clear the rest, up again.
  await s.stack.cancel();
  const report = await recoverPendingCreates(s.stack);
  expect(report.imported).toHaveLength(leftBehind);
  expect(report.imported.length + report.cleared.length).toBeLessThanOrEqual(12);
  expect((await exported(s, TYPE)).map((r) => r.id).sort()).toEqual(
    env.emu.emulator.data.indexes.map((i) => i.record.id).sort(),
  );
  env.emu.resetLog();
  await s.up();
  await expectExactly(s, 12);
  // Only the missing ones were created; nothing was found taken or taken back.
  const creates = env.emu.requests({ route: "POST /v2/search" });
  expect(creates.map((r) => r.status)).toEqual(Array(12 - leftBehind).fill(200));
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 13 });
});

test("after a hard kill mid-takeover, recovery imports the key, queue and budget with what the run changed, so destroy gives it back; an index under a chosen name is left out, not claimed", async () => {
  const { token, account } = freshMessagingAccount(env);
  account.keys["k"] = { waitListSize: 2, paused: false, rateResets: 0 };
  account.record.budget = 300;
  // Each last write of a takeover commits at once but answers late: killed now, the run has
  // changed the key, the budget and the queue, and the state holds only pending creates.
  for (const [method, path] of [
    ["POST", "/flowControl/k/pin$"],
    ["POST", "/v2/queues$"],
    ["PATCH", "/update-budget/"],
    ["POST", "^/v2/search$"],
  ])
    env.emu.addFault({ method, path, delayAfterMs: 15_000 });
  let adopt = false;
  const s = await env.stack({
    stackName: "takeovers",
    program: async () =>
      declaring(() => {
        new MessagingControls("ops", {
          region: "eu-central-1",
          token,
          flowControlKeys: [{ key: "k", paused: true, pin: { parallelism: 3 } }],
          queues: [{ name: "jobs", parallelism: 2 }],
        });
        new MessagingBudget("budget", { accountId: account.record.id, budget: 500 });
        new SearchIndex(
          "orders",
          adopt
            ? { adopt: "orders", region: "eu-west-1", type: "free" }
            : { name: "orders", region: "eu-west-1", type: "free" },
        );
      }),
  });
  const up = s.up().then(
    () => "finished",
    () => "killed",
  );
  await new Promise<void>((resolve) => {
    const watcher = setInterval(() => {
      const done =
        account.keys.k.pinned !== undefined &&
        account.queues.jobs !== undefined &&
        account.record.budget === 500 &&
        env.emu.emulator.data.indexes.length === 1;
      if (done) {
        clearInterval(watcher);
        expect(killOwnChild(/pulumi up .*--stack takeovers/)).toHaveLength(1);
        resolve();
      }
    }, 20);
  });
  expect(await up).toBe("killed");
  env.emu.emulator.controls.clearFaults();
  expect(account.keys.k).toMatchObject({ paused: true, pinned: { parallelism: 3 } });

  await s.stack.cancel();
  const report = await recoverPendingCreates(s.stack);
  expect(report.imported.map((i) => i.name).sort()).toEqual([account.record.id, "jobs", "k"].sort());
  // The run did create "orders", but nothing proves it: a name the user chose may be someone else's.
  expect(report.unproven.map((i) => i.name)).toEqual(["orders"]);
  expect(await exported(s, "pulumi-nodejs:dynamic/mgmt:SearchIndex")).toEqual([]);
  await expect(s.up()).rejects.toThrow(
    /a search index named "orders" already exists and this stack did not create it: set adopt: "orders"/,
  );

  adopt = true;
  env.emu.resetLog();
  await s.up();
  expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
  expect((await s.stack.preview()).changeSummary).not.toHaveProperty("update");

  // Destroy gives back what the killed run changed: the pause and pin lifted, the budget it found,
  // the queue it created deleted. The adopted index is released.
  await s.destroy();
  expect(account.keys.k.paused).toBe(false);
  expect(account.keys.k.pinned ?? {}).toEqual({});
  expect(account.record.budget).toBe(300);
  expect(account.queues.jobs).toBeUndefined();
  expect(env.emu.emulator.data.indexes.map((i) => i.record.name)).toEqual(["orders"]);
});

test("one up of 200 indexes against a service that allows 20 requests a second creates all 200, none twice", async () => {
  env.emu.emulator.controls.setRateLimit(20);
  const s = await env.stack({ stackName: "load", program: indexesProgram(200, (i) => i % 3 === 0) });
  const up = await s.up();
  expect(up.summary.resourceChanges).toEqual({ create: 201 });
  const limited = env.emu.requests().filter((r) => r.status === 429).length;
  expect(limited).toBeGreaterThan(0); // the limit really bit
  expect(env.emu.requests().filter((r) => r.route === "POST /v2/search" && r.status === 200)).toHaveLength(200);
  env.emu.emulator.controls.setRateLimit(0);
  await expectExactly(s, 200);
});
