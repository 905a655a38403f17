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
import { startPostgres, type TestPostgres } from "../support/postgres";

const EXAMPLE = path.join(PACKAGE_ROOT, "examples/tenants");
// Enough that a run stopped after 5 creates (concurrency 5) leaves tenants undone; every tenant
// more is engine runs that prove nothing new.
const TENANTS = 12;
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
function tenantsFile(name: string, tenants: { id: string; rate?: number }[]): string {
  const file = path.join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify(tenants.map((t) => ({ id: t.id, plan: "free", flowControlKey: `key-${t.id}`, pin: { parallelism: 2, rate: t.rate ?? 10, period: 60 } }))));
  return file;
}

interface Run {
  code: number | null;
  out: string;
  process: ReturnType<typeof spawn>;
  done: Promise<void>;
}

/** The driver as a process: non-TTY output, the service from MGMT_*, state in PostgreSQL. */
function driver(args: string[], workDir = path.join(work, "stacks"), extraEnv: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "index.ts", "--backend", pg.url, "--work-dir", workDir, ...args], {
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
  });
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
  const keys = execFileSync("bash", [path.join(PACKAGE_ROOT, "scripts/postgres.sh"), "sql", pg.dir, "SELECT key FROM pulumi_state WHERE key LIKE '%/.pulumi/stacks/tenants/%.json' ORDER BY key"], { encoding: "utf8" });
  return keys.split("\n").filter(Boolean).map((k) => path.basename(k, ".json")).sort();
}

/** The indexes on the service, without the random suffix of their auto-names (`<tenant>-search-<8 hex>`). */
const indexNames = () => env.emu.emulator.data.indexes.map((i) => i.record.name.replace(/-[0-9a-f]{8}$/, "")).sort();

test(`${TENANTS} tenants at concurrency 5 on PostgreSQL: a run stopped half way converges when started again; a second run writes nothing; a concurrent update of a stack is refused and leaves it whole; --destroy leaves nothing`, async () => {
  const { token: t, account } = freshMessagingAccount(env);
  token = t;
  for (const id of ids) account.keys[`key-${id}`] = { waitListSize: 0, paused: false, rateResets: 0 };
  const all = tenantsFile("all", ids.map((id) => ({ id })));

  // 1. Stopped half way (SIGTERM, as a service manager stops it): running updates are cancelled
  //    gracefully, the rest never start, and the driver exits non-zero saying so.
  env.emu.emulator.controls.latencyMs = 150;
  const first = driver(["--tenants", all, "--concurrency", "5"]);
  while (env.emu.requests({ route: "POST /v2/search" }).filter((r) => r.status === 200).length < 5) await new Promise((r) => setTimeout(r, 100));
  first.process.kill("SIGTERM");
  await finished(first);
  env.emu.emulator.controls.latencyMs = 0;
  expect(first.code).not.toBe(0);
  expect(first.out).toMatch(/SIGTERM: cancelling the running updates/);
  const partial = indexNames().length;
  expect(partial).toBeGreaterThanOrEqual(5);
  expect(partial).toBeLessThan(TENANTS);

  // 2. Started again: converges to exactly one index per tenant, one stack per tenant.
  const second = await finished(driver(["--tenants", all, "--concurrency", "5"]));
  expect(second.out).toMatch(new RegExp(`${TENANTS} of ${TENANTS} tenants converged`));
  expect(second.code).toBe(0);
  expect(indexNames()).toEqual(ids.map((id) => `${id}-search`));
  expect(await stacksInBackend()).toEqual(ids);
  expect(ids.every((id) => account.keys[`key-${id}`].pinned?.rate === 10)).toBe(true);
  // The summary table: tenant, status, index, duration.
  expect(second.out).toMatch(/^tenant\s+status\s+index\s+duration$/m);
  const last = ids[TENANTS - 1];
  expect(second.out).toMatch(new RegExp(`^${last}\\s+(created|updated|unchanged)\\s+${last}-search-[0-9a-f]{8}\\s+\\d+\\.\\d+s$`, "m"));

  // 3. Nothing changed: every tenant unchanged, and not one write call.
  env.emu.resetLog();
  const third = await finished(driver(["--tenants", all, "--concurrency", "5"]));
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
  const holder = driver(["--tenants", changed], undefined, { MGMT_TIMEOUT_MS: "600000", MGMT_TOTAL_TIMEOUT_MS: "900000" });
  await env.emu.emulator.controls.heldRequests(1);
  const rival = await finished(driver(["--tenants", changed, "--recover"], path.join(work, "other-operator")));
  // The holder was inside its update all the while: still running, its pin still held (a held
  // request is logged only once answered or abandoned), and the rival wrote nothing.
  expect(holder.code).toBeNull();
  expect(account.keys["key-t01"].pinned?.rate).toBe(10);
  expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
  expect(rival.code).toBe(1);
  expect(rival.out).toMatch(/^t01\s+failed\s/m);
  expect(rival.out).toMatch(/t01: another update of this stack is in progress \(stack tenants\/t01 is being updated by another fleet worker or driver\): wait for it to finish/);
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
  for (const end = Date.now() + 120_000; !indexNames().includes("k1-search"); await new Promise((r) => setTimeout(r, 50))) {
    if (killed.code !== null || Date.now() > end) throw new Error(`k1's create never committed: ${killed.out}`);
  }
  process.kill(-killed.process.pid!, "SIGKILL");
  await finished(killed);
  env.emu.emulator.controls.clearFaults();
  const recovered = await finished(driver(["--tenants", k1]));
  expect([recovered.code, recovered.out]).toEqual([0, expect.stringMatching(/^k1\s+(created|updated|unchanged)\s+k1-search-[0-9a-f]{8}\s/m)]);
  expect(indexNames().filter((n) => n === "k1-search")).toHaveLength(1);
  const k1Runs = execFileSync("bash", [path.join(PACKAGE_ROOT, "scripts/postgres.sh"), "sql", pg.dir, "SELECT result FROM pulumi_mgmt_fleet.runs WHERE stack = 'tenants/k1' ORDER BY id"], { encoding: "utf8" });
  expect(k1Runs.trim().split("\n")).toEqual(["interrupted", expect.stringMatching(/^(created|updated|unchanged)$/)]);

  // 6. --destroy: no index, no pin, no stack left.
  const gone = await finished(driver(["--tenants", tenantsFile("all-and-k1", [...ids, "k1"].map((id) => ({ id }))), "--concurrency", "5", "--destroy"]));
  expect(gone.code).toBe(0);
  expect(indexNames()).toEqual([]);
  expect([...ids, "k1"].filter((id) => account.keys[`key-${id}`].pinned !== undefined)).toEqual([]);
  expect(await stacksInBackend()).toEqual([]);
}, 20 * 60_000);

test("a tenant whose run fails for a transient reason is retried; one that fails for good is not, and the driver exits 1", async () => {
  const { token: t, account } = freshMessagingAccount(env);
  token = t;
  account.keys["key-r1"] = { waitListSize: 0, paused: false, rateResets: 0 };
  // More 503s than the client's own retries (5): the first run of r1 fails on its pin, the next succeeds.
  env.emu.addFault({ method: "POST", path: "/flowControl/key-r1/pin$", status: 503, times: 7 });
  const retried = await finished(driver(["--tenants", tenantsFile("retry", [{ id: "r1" }]), "--work-dir", path.join(work, "retry")]));
  expect(retried.code).toBe(0);
  expect(retried.out).toMatch(/^r1\s+created \(2 attempts\)\s+r1-search-[0-9a-f]{8}\s/m);
  expect(account.keys["key-r1"].pinned).toEqual({ parallelism: 2, rate: 10, period: 60 });

  // A definite refusal (400) is not transient: one attempt, a clear reason, exit code 1. (A key
  // that never carried a message is no failure: its pin creates it.)
  env.emu.addFault({ method: "POST", path: "/flowControl/key-r2/pin$", status: 400, times: 5 });
  const failed = await finished(driver(["--tenants", tenantsFile("refused", [{ id: "r2" }]), "--work-dir", path.join(work, "refused")]));
  expect(failed.code).toBe(1);
  expect(failed.out).toMatch(/^r2\s+failed\s/m);
  expect(failed.out).toMatch(/r2: could not pin flow control key "key-r2" in eu-central-1: the service answered 400: injected fault/);
  expect(env.emu.requests({ route: "POST /regional/:region/v2/flowControl/:key/pin" }).filter((r) => r.path.includes("key-r2"))).toHaveLength(1);
  await finished(driver(["--tenants", tenantsFile("retry", [{ id: "r1" }]), "--work-dir", path.join(work, "retry"), "--destroy"]));
});

test("a bad tenant list fails before anything runs, naming the tenant and the field", async () => {
  const file = path.join(work, "bad.json");
  writeFileSync(file, JSON.stringify([{ id: "ok", flowControlKey: "k" }, { id: "Bad Id", flowControlKey: "k" }, { id: "x", flowControlKey: "k", plan: "gold" }]));
  env.emu.resetLog();
  const run = await finished(driver(["--tenants", file]));
  expect(run.code).toBe(2);
  expect(run.out).toMatch(/bad\.json\[1\] \(Bad Id\): id: must be 1 to 40 lowercase letters/);
  expect(run.out).toMatch(/bad\.json\[2\] \(x\): plan: must be one of free, payg, got "gold"/);
  expect(env.emu.requests()).toEqual([]);
});
