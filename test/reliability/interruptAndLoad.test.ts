/**
 * An up cancelled half way converges after refresh and up; one up of 200 indexes survives a
 * service that rate-limits it hard.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { SearchIndexArgs } from "../../provider";
import { SearchIndex } from "../../provider";
import { exported, testEnv, type TestEnv } from "../support/harness";

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

/** SIGKILL to every process whose command line matches (read from /proc: no tools needed). */
function killProcesses(pattern: RegExp): void {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
    } catch {
      continue; // gone already
    }
    if (pattern.test(cmdline)) process.kill(Number(pid), "SIGKILL");
  }
}

async function expectExactly(s: Awaited<ReturnType<TestEnv["stack"]>>, count: number) {
  const live = await env.client.listSearchIndexes();
  expect(live).toHaveLength(count);
  expect(new Set(live.map((i) => i.name)).size).toBe(count);
  expect((await exported(s, TYPE)).map((r) => r.id).sort()).toEqual(live.map((i) => i.id).sort());
}

test("an up of 20 indexes cancelled half way converges to exactly 20 after refresh and up", async () => {
  // Slow the service down so that the cancel lands while creates are in flight.
  env.emu.emulator.controls.latencyMs = 400;
  const s = await env.stack({ stackName: "interrupted", program: indexesProgram(20, (i) => i % 2 === 0) });
  const abort = new AbortController();
  const watcher = setInterval(() => {
    if (env.emu.emulator.data.indexes.length >= 6) abort.abort();
  }, 20);
  let outcome: string;
  try {
    await s.stack.up({ signal: abort.signal, parallel: 4 });
    outcome = "finished";
  } catch {
    outcome = "cancelled";
  } finally {
    clearInterval(watcher);
  }
  expect(outcome).toBe("cancelled");
  const createdBeforeCancel = env.emu.emulator.data.indexes.length;
  expect(createdBeforeCancel).toBeGreaterThanOrEqual(6);
  expect(createdBeforeCancel).toBeLessThan(20);

  env.emu.emulator.controls.latencyMs = 0;
  await s.stack.refresh({ clearPendingCreates: true });
  await s.stack.up();
  await expectExactly(s, 20);
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 21 });
});

test("after a hard kill of the CLI mid-up, refresh and up take back the auto-named indexes it left behind", async () => {
  // Every create commits at once but answers late: killing the CLI now leaves indexes that
  // exist in the service and only as pending creates in the state.
  env.emu.addFault({ method: "POST", path: "^/v2/search$", delayAfterMs: 5000, times: 12 });
  const s = await env.stack({ stackName: "hardkill", program: indexesProgram(12, () => false) });
  const up = s.stack.up({ parallel: 4 }).then(
    () => "finished",
    () => "killed",
  );
  await new Promise<void>((resolve) => {
    const watcher = setInterval(() => {
      if (env.emu.emulator.data.indexes.length >= 4) {
        clearInterval(watcher);
        // SIGKILL: no graceful cancel, no final checkpoint.
        killProcesses(/pulumi up .*--stack hardkill/);
        resolve();
      }
    }, 20);
  });
  expect(await up).toBe("killed");
  env.emu.emulator.controls.clearFaults();
  const leftBehind = env.emu.emulator.data.indexes.length;
  expect(leftBehind).toBeGreaterThanOrEqual(4);
  expect(await exported(s, TYPE)).toEqual([]);

  // The recovery a user runs: release the killed run's lock, drop its pending creates, up again.
  await s.stack.cancel();
  await s.stack.refresh({ clearPendingCreates: true });
  env.emu.resetLog();
  await s.stack.up();
  await expectExactly(s, 12);
  // The left-behind ones were found taken (409) and taken back, not duplicated under new names.
  expect(env.emu.requests({ route: "POST /v2/search" }).filter((r) => r.status === 409)).toHaveLength(leftBehind);
});

test("one up of 200 indexes against a service that allows 20 requests a second creates all 200, none twice", async () => {
  env.emu.emulator.controls.setRateLimit(20);
  const s = await env.stack({ stackName: "load", program: indexesProgram(200, (i) => i % 3 === 0) });
  const up = await s.stack.up();
  expect(up.summary.resourceChanges).toEqual({ create: 201 });
  const limited = env.emu.requests().filter((r) => r.status === 429).length;
  expect(limited).toBeGreaterThan(0); // the limit really bit
  expect(env.emu.requests().filter((r) => r.route === "POST /v2/search" && r.status === 200)).toHaveLength(200);
  env.emu.emulator.controls.setRateLimit(0);
  await expectExactly(s, 200);
});
