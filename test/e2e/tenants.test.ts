/**
 * The tenant-provisioning example (examples/tenants) as a user runs it, a separate process,
 * against the emulator with its state in a real PostgreSQL (scripts/postgres.sh installs and
 * starts a throw-away cluster; if it cannot, this test fails with the reason).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../../provider/automation";
import { freshMessagingAccount, testEnv, writes, type TestEnv } from "../support/harness";
import { tenantsFile as writeTenantsFile } from "../support/tenantsFile";
import { startPostgres, type TestPostgres } from "../support/postgres";
import { fleetRunProcesses } from "../support/processes";

const EXAMPLE = path.join(PACKAGE_ROOT, "examples/tenants");
// Enough that a run stopped after 3 creates (concurrency 3) leaves tenants undone; every tenant
// more is engine runs that prove nothing new.
const TENANTS = 6;
const PASSPHRASE = "test-only-passphrase";

let env: TestEnv;
let pg: TestPostgres;
let work: string;
let token: string;

beforeAll(async () => {
  env = await testEnv();
  pg = startPostgres();
  work = mkdtempSync(path.join(tmpdir(), "tenants-work-"));
});
afterAll(async () => {
  env?.emu.emulator.controls.openGate(); // a test that failed half way may have left a request held
  pg?.stop();
  rmSync(work, { recursive: true, force: true });
  await env.cleanup();
});

const ids = Array.from({ length: TENANTS }, (_, i) => `t${String(i + 1).padStart(2, "0")}`);
const tenantsFile = (name: string, tenants: { id: string; rate?: number }[]) => writeTenantsFile(work, name, tenants);

interface Run {
  code: number | null;
  out: string;
  process: ReturnType<typeof spawn>;
  done: Promise<void>;
}

/** The driver as a process: non-TTY output, the service from MGMT_*, state in PostgreSQL. */
function driver(args: string[], workDir = path.join(work, "stacks"), extraEnv: Record<string, string> = {}): Run {
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", "index.ts", "--backend", pg.url, "--work-dir", workDir, ...args],
    {
      cwd: EXAMPLE,
      // A process group of its own, so that a test can kill the driver with its Pulumi processes,
      // as a machine or container that dies (or systemd stopping a unit) does.
      detached: true,
      env: {
        ...process.env,
        TS_NODE_PROJECT: path.join(EXAMPLE, "tsconfig.json"),
        PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
        MGMT_BASE_URL: env.mgmt.baseUrl as string,
        MGMT_USERNAME: env.mgmt.username as string,
        MGMT_PASSWORD: env.mgmt.password as string,
        MGMT_MESSAGING_URL: env.mgmt.messagingUrl as string,
        MGMT_REGIONAL_MESSAGING_URL: env.mgmt.regionalMessagingUrl as string,
        MGMT_MESSAGING_TOKEN: token,
        ...extraEnv,
      },
    },
  );
  const run: Run = { code: null, out: "", process: child, done: Promise.resolve() };
  child.stdout!.on("data", (d) => (run.out += d));
  child.stderr!.on("data", (d) => (run.out += d));
  run.done = new Promise((resolve) => child.on("close", (code) => ((run.code = code), resolve())));
  return run;
}

async function finished(run: Run): Promise<Run> {
  await run.done;
  return run;
}

/**
 * The stacks of project "tenants" in the PostgreSQL backend, read from its table: `pulumi stack
 * ls` on the 3.248 postgres backend hangs with this many stacks (seen here).
 */
async function stacksInBackend(): Promise<string[]> {
  const keys = execFileSync(
    "bash",
    [
      path.join(PACKAGE_ROOT, "scripts/postgres.sh"),
      "sql",
      pg.dir,
      "SELECT key FROM pulumi_state WHERE key LIKE '%/.pulumi/stacks/tenants/%.json' ORDER BY key",
    ],
    { encoding: "utf8" },
  );
  return keys
    .split("\n")
    .filter(Boolean)
    .map((k) => path.basename(k, ".json"))
    .sort();
}

/** The indexes on the service, without the random suffix of their auto-names (`<tenant>-search-<8 hex>`). */
const indexNames = () => env.emu.emulator.data.indexes.map((i) => i.record.name.replace(/-[0-9a-f]{8}$/, "")).sort();

test(
  `${TENANTS} tenants at concurrency 3 on PostgreSQL: a run stopped half way converges when started again; a second run writes nothing; a concurrent update of a stack is refused and leaves it whole; --destroy leaves nothing`,
  async () => {
    const { token: t, account } = freshMessagingAccount(env);
    token = t;
    for (const id of ids) account.keys[`key-${id}`] = { waitListSize: 0, paused: false, rateResets: 0 };
    const all = tenantsFile(
      "all",
      ids.map((id) => ({ id })),
    );

    // 1. Stopped half way (SIGTERM, as a service manager stops it): running updates are cancelled
    //    gracefully, the rest never start, and the driver exits non-zero saying so.
    env.emu.emulator.controls.latencyMs = 150;
    const first = driver(["--tenants", all, "--concurrency", "3"]);
    await until(
      "3 indexes created",
      () => env.emu.requests({ route: "POST /v2/search" }).filter((r) => r.status === 200).length >= 3,
      300_000,
      first,
    );
    first.process.kill("SIGTERM");
    await finished(first);
    env.emu.emulator.controls.latencyMs = 0;
    expect(first.code).not.toBe(0);
    expect(first.out).toMatch(/SIGTERM: cancelling the running updates/);
    const partial = indexNames().length;
    expect(partial).toBeGreaterThanOrEqual(3);
    expect(partial).toBeLessThan(TENANTS);

    // 2. Started again: converges to exactly one index per tenant, one stack per tenant.
    const second = await endsWithin(driver(["--tenants", all, "--concurrency", "3"]), 600_000);
    expect(second.out).toMatch(new RegExp(`${TENANTS} of ${TENANTS} tenants converged`));
    expect(second.code).toBe(0);
    expect(indexNames()).toEqual(ids.map((id) => `${id}-search`));
    expect(await stacksInBackend()).toEqual(ids);
    expect(ids.every((id) => account.keys[`key-${id}`].pinned?.rate === 10)).toBe(true);
    // The summary table: tenant, status, index, duration.
    expect(second.out).toMatch(/^tenant\s+status\s+index\s+duration$/m);
    const last = ids[TENANTS - 1];
    expect(second.out).toMatch(
      new RegExp(`^${last}\\s+(created|updated|unchanged)\\s+${last}-search-[0-9a-f]{8}\\s+\\d+\\.\\d+s$`, "m"),
    );

    // 3. Nothing changed: every tenant unchanged, and not one write call.
    env.emu.resetLog();
    const third = await endsWithin(driver(["--tenants", all, "--concurrency", "3"]), 600_000);
    expect(third.code).toBe(0);
    expect(third.out.match(/^t\d\d\s+unchanged\s/gm)).toHaveLength(TENANTS);
    expect(writes(env.emu)).toBe(0);

    // 4. Two operators update t01 at once, the second with --recover (which breaks Pulumi's lock, a
    //    lock with no lease): the stack's fence refuses it, clearly, at once, before it touches
    //    the stack; the first finishes, and the stack is whole (a re-run finds nothing to do).
    const changed = tenantsFile("one", [{ id: "t01", rate: 20 }]);
    env.emu.resetLog();
    env.emu.addFault({ method: "POST", path: "/flowControl/key-t01/pin$", hold: true });
    // The holder waits at the gate for as long as the test needs: with the default 10 s timeout its
    // client gave up on the held pin and resent it (an idempotent call), the resend went through,
    // and a slow rival then found the lock free and a stack with nothing to do (issue 28).
    const holder = driver(["--tenants", changed], undefined, {
      MGMT_TIMEOUT_MS: "600000",
      MGMT_TOTAL_TIMEOUT_MS: "900000",
    });
    await heldWithin(1, 300_000, holder);
    const rival = await finished(driver(["--tenants", changed, "--recover"], path.join(work, "other-operator")));
    // The holder was inside its update all the while: still running, its pin still held (a held
    // request is logged only once answered or abandoned), and the rival wrote nothing.
    expect(holder.code).toBeNull();
    expect(account.keys["key-t01"].pinned?.rate).toBe(10);
    expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
    expect(rival.code).toBe(1);
    expect(rival.out).toMatch(/^t01\s+failed\s/m);
    expect(rival.out).toMatch(
      /t01: another update of this stack is in progress \(stack tenants\/t01 is being updated by another fleet worker or driver\): wait for it to finish/,
    );
    expect(rival.out).not.toMatch(/attempts/); // never retried
    env.emu.emulator.controls.openGate();
    await finished(holder);
    expect(holder.code).toBe(0);
    expect(holder.out).toMatch(/^t01\s+updated\s+t01-search-[0-9a-f]{8}\s/m);
    expect(account.keys["key-t01"].pinned).toEqual({ parallelism: 2, rate: 20, period: 60 });
    const whole = await finished(driver(["--tenants", changed]));
    expect(whole.out).toMatch(/^t01\s+unchanged\s/m);

    // 5. A driver killed (SIGKILL) after its create committed and before the answer: the next run,
    //    with no --recover, finds the dead driver's run open, breaks its stale lock, imports the
    //    index its create made, and converges without a second index.
    const k1 = tenantsFile("k1", [{ id: "k1" }]);
    env.emu.addFault({ method: "POST", path: "^/v2/search$", delayAfterMs: 120_000, times: 1 });
    const killed = driver(["--tenants", k1]);
    for (
      const end = Date.now() + 120_000;
      !indexNames().includes("k1-search");
      await new Promise((r) => setTimeout(r, 50))
    ) {
      if (killed.code !== null || Date.now() > end) throw new Error(`k1's create never committed: ${killed.out}`);
    }
    process.kill(-killed.process.pid!, "SIGKILL");
    await finished(killed);
    env.emu.emulator.controls.clearFaults();
    const recovered = await finished(driver(["--tenants", k1]));
    expect([recovered.code, recovered.out]).toEqual([
      0,
      expect.stringMatching(/^k1\s+(created|updated|unchanged)\s+k1-search-[0-9a-f]{8}\s/m),
    ]);
    expect(indexNames().filter((n) => n === "k1-search")).toHaveLength(1);
    const k1Runs = execFileSync(
      "bash",
      [
        path.join(PACKAGE_ROOT, "scripts/postgres.sh"),
        "sql",
        pg.dir,
        "SELECT result FROM pulumi_mgmt_fleet.runs WHERE stack = 'tenants/k1' ORDER BY id",
      ],
      { encoding: "utf8" },
    );
    expect(k1Runs.trim().split("\n")).toEqual(["interrupted", expect.stringMatching(/^(created|updated|unchanged)$/)]);

    // 6. --destroy: no index, no pin, no stack left.
    const gone = await finished(
      driver([
        "--tenants",
        tenantsFile(
          "all-and-k1",
          [...ids, "k1"].map((id) => ({ id })),
        ),
        "--concurrency",
        "3",
        "--destroy",
      ]),
    );
    expect(gone.code).toBe(0);
    expect(indexNames()).toEqual([]);
    expect([...ids, "k1"].filter((id) => account.keys[`key-${id}`].pinned !== undefined)).toEqual([]);
    expect(await stacksInBackend()).toEqual([]);
  },
  20 * 60_000,
);

/** Resolves when `cond` holds; fails naming `what` after `ms`, or at once if `run` ends first, with what it printed. */
async function until(what: string, cond: () => boolean, ms: number, run?: Run): Promise<void> {
  for (const end = Date.now() + ms; !cond(); await new Promise((r) => setTimeout(r, 100))) {
    if (run && run.code !== null) throw new Error(`the driver ended (exit ${run.code}) before ${what}:\n${run.out}`);
    if (Date.now() > end)
      throw new Error(`waited ${ms / 1000}s for ${what}${run ? `; the driver printed:\n${run.out}` : ""}`);
  }
}

/** Resolves when `count` requests wait at the emulator's gate; fails after `ms`, or once `run` ends, with what it printed. */
async function heldWithin(count: number, ms: number, run: Run): Promise<void> {
  let held = false;
  void env.emu.emulator.controls.heldRequests(count).then(() => (held = true));
  await until(`${count} request(s) held at the emulator's gate`, () => held, ms, run);
}

/** Awaits a run's end, failing after `ms` with what it printed: a driver that hangs is the bug. */
async function endsWithin(run: Run, ms: number): Promise<Run> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`the driver did not end within ${ms / 1000}s:\n${run.out}`)), ms)),
  );
  try {
    return await Promise.race([finished(run), late]);
  } finally {
    clearTimeout(timer);
    if (run.code === null) process.kill(-run.process.pid!, "SIGKILL");
  }
}

/** Resolves once `n` requests are held at the emulator's gate; fails with the driver's output if they never are. */
async function held(n: number, run: Run, ms = 120_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(
        () =>
          reject(
            new Error(
              `${n} requests were never held at the gate within ${ms / 1000}s; the driver printed:\n${run.out}`,
            ),
          ),
        ms,
      )),
  );
  try {
    await Promise.race([env.emu.emulator.controls.heldRequests(n), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every index of these tenants on the service is in exactly one of their stacks' state, and each stack holds one. */
async function oneIndexPerTenant(tenants: string[]): Promise<void> {
  const onService = env.emu.emulator.data.indexes
    .filter((i) => tenants.some((t) => i.record.name.startsWith(`${t}-search-`)))
    .map((i) => i.record.id)
    .sort();
  const inState = await pg.indexIdsInState();
  expect(tenants.map((t) => [t, inState[t]?.length])).toEqual(tenants.map((t) => [t, 1]));
  expect(tenants.flatMap((t) => inState[t]).sort()).toEqual(onService);
}

test(
  "the state database stopped mid-run: the driver says so at once, gives up after --db-wait with a line per tenant; SIGTERM with the database away ends it in seconds; once it is back, a rerun converges with one index per tenant",
  async () => {
    const { token: t, account } = freshMessagingAccount(env);
    token = t;
    const dbIds = ["d1", "d2", "d3"];
    for (const id of dbIds) account.keys[`key-${id}`] = { waitListSize: 0, paused: false, rateResets: 0 };
    const file = tenantsFile(
      "db",
      dbIds.map((id) => ({ id })),
    );
    const stacks = path.join(work, "db-stacks");

    // 1. Three creates in flight, then PostgreSQL stops (immediate): the driver says within
    //    seconds what it waits for, and after --db-wait it stops for good, one line per tenant.
    env.emu.emulator.controls.closeGate();
    env.emu.addFault({ method: "POST", path: "^/v2/search$", hold: true, times: 3 });
    const waiting = driver(["--tenants", file, "--concurrency", "3", "--db-wait", "8"], stacks);
    await held(3, waiting);
    pg.halt();
    const halted = Date.now();
    await until(
      "the driver to say the database is away, and how long it waits",
      () =>
        /tenants: the state database at 127\.0\.0\.1:\d+ is unreachable[^]*waiting up to 8s for it \(--db-wait\), then stopping/.test(
          waiting.out,
        ),
      10_000,
    );
    env.emu.emulator.controls.openGate(); // the creates commit on the service; no state can record them
    env.emu.emulator.controls.clearFaults();
    await endsWithin(waiting, 60_000);
    expect(Date.now() - halted).toBeLessThan(40_000);
    expect(waiting.code).toBe(1);
    expect(waiting.out).toMatch(/the state database was unreachable for \d+s \(--db-wait\): stopping now/);
    for (const id of dbIds) expect(waiting.out).toMatch(new RegExp(`^${id}: cancelled: `, "m"));
    expect(waiting.out).toMatch(/0 of 3 tenants converged, 3 failed/);

    // 2. The database back, a run held inside its updates (a new rate for each key), the database
    //    gone again, then SIGTERM: the graceful cancel cannot finish without the state, so within
    //    seconds the driver ends its Pulumi processes and exits.
    pg.resume();
    const rate20 = tenantsFile(
      "db-rate",
      dbIds.map((id) => ({ id, rate: 20 })),
    );
    env.emu.emulator.controls.closeGate();
    env.emu.addFault({ method: "POST", path: "/flowControl/key-d[123]/pin$", hold: true, times: 3 });
    const stopped = driver(["--tenants", rate20, "--concurrency", "3", "--db-wait", "600"], stacks);
    await held(3, stopped);
    pg.halt();
    await until("the driver to say the database is away", () => /is unreachable/.test(stopped.out), 10_000);
    stopped.process.kill("SIGTERM");
    const signalled = Date.now();
    await endsWithin(stopped, 60_000);
    expect(Date.now() - signalled).toBeLessThan(25_000);
    expect(stopped.code).toBe(1);
    expect(stopped.out).toMatch(/SIGTERM: cancelling the running updates/);
    expect(stopped.out).toMatch(/did not stop within 10s: stopping now \(ended \d+ Pulumi process/);
    expect(fleetRunProcesses(pg.url)).toEqual([]); // nothing of those runs can send a request any more

    // 3. Back again: a plain rerun recovers the stacks both runs left (their creates imported, not
    //    made twice) and converges.
    pg.resume();
    env.emu.emulator.controls.openGate();
    env.emu.emulator.controls.clearFaults();
    const rerun = await endsWithin(driver(["--tenants", rate20, "--concurrency", "3"], stacks), 5 * 60_000);
    expect([rerun.code, rerun.out]).toEqual([0, expect.stringMatching(/3 of 3 tenants converged/)]);
    await oneIndexPerTenant(dbIds);
    expect(dbIds.map((id) => account.keys[`key-${id}`].pinned?.rate)).toEqual([20, 20, 20]);
  },
  10 * 60_000,
);

test(
  "the driver's node process SIGKILLed alone while creates are in flight, then --recover at once: its Pulumi processes get a bounded wait, then every tenant converges, one index each",
  async () => {
    const { token: t, account } = freshMessagingAccount(env);
    token = t;
    const kIds = ["x1", "x2", "x3"];
    for (const id of kIds) account.keys[`key-${id}`] = { waitListSize: 0, paused: false, rateResets: 0 };
    const file = tenantsFile(
      "kill",
      kIds.map((id) => ({ id })),
    );
    const stacks = path.join(work, "kill-stacks");
    // Each create commits and is answered 25 s later: the dead driver's CLIs are still waiting for
    // their answers when the next run takes over (its check that the driver is dead takes 12 s).
    env.emu.addFault({ method: "POST", path: "^/v2/search$", delayAfterMs: 25_000, times: 3 });
    const victim = driver(["--tenants", file, "--concurrency", "3"], stacks);
    await until(
      "three creates to commit",
      () => kIds.every((id) => indexNames().includes(`${id}-search`)) || victim.code !== null,
      120_000,
    );
    process.kill(victim.process.pid!, "SIGKILL"); // the node process alone, as `kill -9 <pid>` or the OOM killer
    await finished(victim);
    const recovered = await endsWithin(
      driver(["--tenants", file, "--concurrency", "3", "--recover", "--takeover-wait", "60"], stacks),
      5 * 60_000,
    );
    env.emu.emulator.controls.clearFaults();
    expect([recovered.code, recovered.out]).toEqual([0, expect.stringMatching(/3 of 3 tenants converged/)]);
    // The dead driver's CLIs die at their next line of output (a broken pipe), and their providers
    // a second after their CLI (provider/engineWatch.ts); a CLI still running at the takeover is
    // waited for and then ended, saying so (test/unit/leftovers.test.ts shows the lines).
    await oneIndexPerTenant(kIds);
    expect(fleetRunProcesses(pg.url)).toEqual([]);
  },
  10 * 60_000,
);

test("a tenant whose run fails for a transient reason is retried; one that fails for good is not, and the driver exits 1", async () => {
  const { token: t, account } = freshMessagingAccount(env);
  token = t;
  account.keys["key-r1"] = { waitListSize: 0, paused: false, rateResets: 0 };
  // More 503s than the client's own retries (5): the first run of r1 fails on its pin, the next succeeds.
  env.emu.addFault({ method: "POST", path: "/flowControl/key-r1/pin$", status: 503, times: 7 });
  const retried = await finished(
    driver(["--tenants", tenantsFile("retry", [{ id: "r1" }]), "--work-dir", path.join(work, "retry")]),
  );
  expect(retried.code).toBe(0);
  expect(retried.out).toMatch(/^r1\s+created \(2 attempts\)\s+r1-search-[0-9a-f]{8}\s/m);
  expect(account.keys["key-r1"].pinned).toEqual({ parallelism: 2, rate: 10, period: 60 });

  // A definite refusal (400) is not transient: one attempt, a clear reason, exit code 1. (A key
  // that never carried a message is no failure: its pin creates it.)
  env.emu.addFault({ method: "POST", path: "/flowControl/key-r2/pin$", status: 400, times: 5 });
  const failed = await finished(
    driver(["--tenants", tenantsFile("refused", [{ id: "r2" }]), "--work-dir", path.join(work, "refused")]),
  );
  expect(failed.code).toBe(1);
  expect(failed.out).toMatch(/^r2\s+failed\s/m);
  expect(failed.out).toMatch(
    /r2: could not pin flow control key "key-r2" in eu-central-1: the service answered 400: injected fault/,
  );
  expect(
    env.emu
      .requests({ route: "POST /regional/:region/v2/flowControl/:key/pin" })
      .filter((r) => r.path.includes("key-r2")),
  ).toHaveLength(1);
  await finished(
    driver(["--tenants", tenantsFile("retry", [{ id: "r1" }]), "--work-dir", path.join(work, "retry"), "--destroy"]),
  );
});

test("a bad tenant list fails before anything runs, naming the tenant and the field", async () => {
  const file = path.join(work, "bad.json");
  writeFileSync(
    file,
    JSON.stringify([
      { id: "ok", flowControlKey: "k" },
      { id: "Bad Id", flowControlKey: "k" },
      { id: "x", flowControlKey: "k", plan: "gold" },
    ]),
  );
  env.emu.resetLog();
  const run = await finished(driver(["--tenants", file]));
  expect(run.code).toBe(2);
  expect(run.out).toMatch(/bad\.json\[1\] \(Bad Id\): id: must be 1 to 40 lowercase letters/);
  expect(run.out).toMatch(/bad\.json\[2\] \(x\): plan: must be one of free, payg, got "gold"/);
  expect(env.emu.requests()).toEqual([]);
});
