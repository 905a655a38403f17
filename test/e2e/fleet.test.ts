/**
 * Fleets (`mgmt-fleet`, fleet/): worker processes converge tenants from a graphile-worker
 * queue in a real PostgreSQL (scripts/postgres.sh) that also holds the stacks' state, against
 * the emulator over HTTP. The commands run as a user runs them: the installed package's bin.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { mgmtStack, PACKAGE_ROOT } from "../../provider/automation";
import { postgresFileText } from "../../fleet/adapters/pulumiBackend";
import { takeFence } from "../../fleet/fence";
import { ensureFleetSchema } from "../../fleet/fleetDatabase";
import { isDead, workerLockName } from "../../fleet/liveness";
import { status } from "../../fleet/queue";
import { convergeFenced } from "../../fleet/fencedRun";
import { TENANT_PROJECT, type Tenant } from "../../fleet/tenant";
import { tenantProgram, useTenantPlugin } from "../../fleet/tenantResources";
import { freshMessagingAccount, testEnv, writes, type TestEnv } from "../support/harness";
import { tenantsFile as writeTenantsFile } from "../support/tenantsFile";
import { startPostgres, type TestPostgres } from "../support/postgres";
import { fleetRunProcesses } from "../support/processes";

const BIN = path.join(PACKAGE_ROOT, "node_modules/pulumi-mgmt-fleet/dist/cli.js");
const PASSPHRASE = "test-only-passphrase";
// Enough for every role (one held at the gate, one killed run, one failing for good, two 503
// bursts submitted late, one changed by a second submit) beside plain tenants; each more is
// engine runs that prove nothing new.
const TENANTS = 16;

let env: TestEnv;
let pg: TestPostgres;
let work: string;
let token: string;

beforeAll(async () => {
  env = await testEnv();
  pg = startPostgres();
  work = mkdtempSync(path.join(tmpdir(), "fleet-work-"));
});
// A test that fails half way must not leave its workers to take the next test's jobs.
afterEach(async () => {
  const alive = workers.filter((w) => w.code === null);
  for (const w of alive) process.kill(-w.process.pid!, "SIGKILL");
  await Promise.all(alive.map((w) => w.done));
});
afterAll(async () => {
  pg?.stop();
  rmSync(work, { recursive: true, force: true });
  await env.cleanup();
});

interface Proc {
  code: number | null;
  out: string;
  process: ReturnType<typeof spawn>;
  done: Promise<void>;
}
const workers: Proc[] = [];

/**
 * Another machine, as far as a worker can tell: a hostname and a process table of its own (Linux
 * namespaces; needs root). Without it, a worker sees the processes of a worker it takes over from.
 */
const OTHER_MACHINE = [
  "unshare",
  "--pid",
  "--fork",
  "--mount-proc",
  "--uts",
  "sh",
  "-c",
  'hostname fleet-other-machine && exec "$0" "$@"',
];
const canFakeAnotherMachine = () => spawnSync(OTHER_MACHINE[0], [...OTHER_MACHINE.slice(1), "true"]).status === 0;

function fleet(args: string[], extraEnv: Record<string, string> = {}, prefix: string[] = []): Proc {
  const command = [...prefix, process.execPath, BIN, ...args, "--database", pg.url];
  const child = spawn(command[0], command.slice(1), {
    cwd: PACKAGE_ROOT,
    // A process group of its own: a test kills a worker with its Pulumi processes, as a machine
    // or container that dies (or systemd stopping its unit) does.
    detached: true,
    env: {
      ...process.env,
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      MGMT_BASE_URL: env.mgmt.baseUrl as string,
      MGMT_USERNAME: env.mgmt.username as string,
      MGMT_PASSWORD: env.mgmt.password as string,
      MGMT_MESSAGING_URL: env.mgmt.messagingUrl as string,
      MGMT_REGIONAL_MESSAGING_URL: env.mgmt.regionalMessagingUrl as string,
      MGMT_MESSAGING_TOKEN: token,
      MGMT_FLEET_DEBUG: "1",
      ...extraEnv,
    },
  });
  const proc: Proc = { code: null, out: "", process: child, done: Promise.resolve() };
  child.stdout!.on("data", (d) => (proc.out += d));
  child.stderr!.on("data", (d) => (proc.out += d));
  proc.done = new Promise((resolve) =>
    child.on("close", (code, signal) => ((proc.code = code ?? (signal ? 128 : -1)), resolve())),
  );
  return proc;
}

async function finished(p: Proc): Promise<Proc> {
  await p.done;
  return p;
}

function worker(name: string, concurrency = 2, extraEnv: Record<string, string> = {}, prefix: string[] = []): Proc {
  const w = fleet(
    ["worker", "--concurrency", String(concurrency), "--work-dir", path.join(work, name)],
    extraEnv,
    prefix,
  );
  workers.push(w);
  return w;
}

const tenantsFile = (name: string, tenants: { id: string; rate?: number }[]) => writeTenantsFile(work, name, tenants);

/**
 * A worker whose first search index create waits at the emulator's closed gate (the caller opens
 * it), and the wait for that create to be held (or the worker to end).
 */
function workerHoldingFirstCreate(name: string, concurrency: number, tenantId: string) {
  env.emu.emulator.controls.closeGate();
  env.emu.addFault({ method: "POST", path: "^/v2/search$", hold: true });
  const w = worker(name, concurrency);
  const held = Promise.race([
    env.emu.emulator.controls.heldRequests(1),
    until(`${tenantId}'s create to be held`, () => w.code !== null, 120_000),
  ]);
  return { w, held };
}

const sql = <T extends Record<string, unknown>>(text: string, values: unknown[] = []) => pg.sql<T>(text, values);
const indexIdsInState = () => pg.indexIdsInState();

/**
 * `mgmt-fleet status --json`, parsed; its output in the error if it is not JSON. (Waits poll the
 * same `status()` in this process instead: a CLI process per poll would cost the tests' CPU.)
 */
async function statusRows(): Promise<
  { tenant: string; state: string; action?: string; attempts: number; error?: string; note?: string }[]
> {
  const st = await finished(fleet(["status", "--json"]));
  try {
    return JSON.parse(st.out);
  } catch {
    throw new Error(`mgmt-fleet status --json printed: ${st.out}`);
  }
}

/** Whether a worker's log shows a run started and not yet ended (by its result line; a busy fence starts no run). */
function insideUpdate(w: Proc): boolean {
  const open = new Map<string, number>();
  for (const line of w.out.split("\n")) {
    const started = /^(\S+): (converge|destroy|drift) \(attempt/.exec(line);
    const ended = /^(\S+): .*( in \d+\.\ds|; retrying later)$/.exec(line);
    if (started) open.set(started[1], (open.get(started[1]) ?? 0) + 1);
    else if (ended) open.set(ended[1], Math.max(0, (open.get(ended[1]) ?? 0) - 1));
  }
  return [...open.values()].some((n) => n > 0);
}

/** Resolves when `ok` holds; fails naming `what` after `ms`, with the tail of what `workers` printed. */
const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 240_000, workers: Proc[] = []) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end)
      throw new Error(
        [`timed out waiting for ${what}`, ...workers.map((w) => w.out.split("\n").slice(-15).join("\n"))].join("\n"),
      );
    await new Promise((r) => setTimeout(r, 500));
  }
};

test(
  `${TENANTS} tenants, 3 worker processes: PostgreSQL restarted, one killed mid-run, a second submit while jobs run, a burst of 503s, a tenant that fails for good; every stack updated by one worker at a time, and a re-run writes nothing`,
  async () => {
    const { token: t, account } = freshMessagingAccount(env);
    token = t;
    const ids = Array.from({ length: TENANTS }, (_, i) => `f${String(i + 1).padStart(2, "0")}`);
    const good = ids.filter((id) => id !== "f13");
    // f13 fails for good: the service refuses its pin (400), on every attempt.
    env.emu.addFault({ method: "POST", path: "/flowControl/key-f13/pin$", status: 400, times: 1000 });
    // A burst of 503s on two tenants' pins: more than the client's own retries (1 + 5 tries), so
    // each of their first runs fails and the queue retries it. They are submitted only after the
    // restart and the kill below, so that neither cuts one of their runs short (a run whose fence
    // the restart cut is cancelled, not failed; seen once when the others' runs went fast).
    const bursts = ["f14", "f15"];
    for (const id of bursts)
      env.emu.addFault({ method: "POST", path: `/flowControl/key-${id}/pin$`, status: 503, times: 7 });
    env.emu.emulator.controls.latencyMs = 40;

    const submitted = await finished(
      fleet([
        "submit",
        tenantsFile(
          "all",
          ids.filter((id) => !bursts.includes(id)).map((id) => ({ id })),
        ),
      ]),
    );
    expect(submitted.out).toMatch(new RegExp(`submitted ${TENANTS - bursts.length} converge jobs`));
    expect(submitted.code).toBe(0);
    // f03's pin waits at the emulator's gate: PostgreSQL is restarted while its update is surely in
    // the middle (early, when no tenant with a 503 burst runs), on a worker that will live on.
    env.emu.addFault({ method: "POST", path: "/flowControl/key-f03/pin$", hold: true });
    const survivors = [worker("w2"), worker("w3")];

    // PostgreSQL restarted: every connection drops, and the runs whose fence it cut are stopped.
    let held = false;
    void env.emu.emulator.controls.heldRequests(1).then(() => (held = true));
    await until("f03's pin to wait at the emulator's gate", () => held, 300_000, survivors);
    pg.restart();
    await until(
      "f03's worker to hear its fence is lost",
      () =>
        survivors.some((w) =>
          /f03: the connection to the fleet database was lost, so another worker may take the stack: cancelling its update/.test(
            w.out,
          ),
        ),
      60_000,
    );
    env.emu.emulator.controls.openGate();

    // A third worker, killed in the middle of updates: SIGKILL to the worker and its Pulumi
    // processes, no chance to clean up.
    const doomed = worker("w1");
    await until(
      "the first updates",
      () => env.emu.requests({ route: "POST /v2/search" }).filter((r) => r.status === 200).length >= 4,
    );
    await until("the doomed worker to be inside an update", () => insideUpdate(doomed));
    process.kill(-doomed.process.pid!, "SIGKILL");
    const killedAt = new Date();

    // A second submit while jobs run: f16's newer desired state replaces its queued job (or follows
    // its running one), and so does every other queued tenant's; the two with a 503 burst get their
    // first job (their second run must be the queue's retry of it).
    const again = await finished(
      fleet([
        "submit",
        tenantsFile(
          "again",
          good.map((id) => ({ id, rate: id === "f16" ? 20 : 10 })),
        ),
      ]),
    );
    expect(again.code).toBe(0);

    await until(
      "every job done",
      async () => {
        const rows = await status(pg.url);
        return rows.length === TENANTS && rows.every((r) => r.state !== "queued" && r.state !== "running");
      },
      600_000,
    );
    env.emu.emulator.controls.latencyMs = 0;

    const shown = await statusRows(); // what `mgmt-fleet status --json` prints
    const byTenant = Object.fromEntries(shown.map((s) => [s.tenant, s]));
    // The tenant that fails for good: failed with the engine's reason, and never run again after it.
    expect(byTenant.f13.state).toBe("failed");
    expect(byTenant.f13.error).toMatch(
      /could not pin flow control key "key-f13" in eu-central-1: the service answered 400/,
    );
    expect(
      good.map((id) => byTenant[id]).filter((r) => !["created", "updated", "unchanged"].includes(r.state)),
    ).toEqual([]);
    expect(account.keys["key-f16"].pinned?.rate).toBe(20);
    expect(good.every((id) => account.keys[`key-${id}`].pinned !== undefined)).toBe(true);

    // The killed worker's runs were finished by the others, and the 503s were retried by the queue.
    const runs = await sql<{
      stack: string;
      worker: string;
      result: string | null;
      started_at: Date;
      ended_at: Date | null;
      attempt: number;
    }>("SELECT stack, worker, result, started_at, ended_at, attempt FROM pulumi_mgmt_fleet.runs ORDER BY id");
    const f13 = runs.filter((r) => r.stack === "tenants/f13");
    expect([f13.filter((r) => r.result === "failed").length, f13[f13.length - 1].result]).toEqual([1, "failed"]);
    const interrupted = runs.filter((r) => r.result === "interrupted");
    expect(interrupted.length).toBeGreaterThanOrEqual(1);
    for (const id of bursts) {
      expect(runs.filter((r) => r.stack === `tenants/${id}`).map((r) => [r.result, r.attempt])).toEqual([
        ["failed", 1],
        ["created", 2],
      ]);
    }
    // One worker at a time per stack: each run starts after the one before it ended (a killed run
    // ended at the kill), and none is left open.
    expect(runs.filter((r) => r.ended_at === null)).toEqual([]);
    // The restart stopped the runs whose fence it cut (their jobs went back to the queue and
    // converged, above), and the surviving workers took their locks again.
    expect(runs.filter((r) => r.stack === "tenants/f03").map((r) => r.result)).toEqual(
      expect.arrayContaining(["cancelled", expect.stringMatching(/^(created|updated|unchanged)$/)]),
    );
    for (const w of survivors)
      expect(w.out).toMatch(/reconnected to the fleet database at 127\.0\.0\.1:\d+ after \d+s/);
    const byStack = new Map<string, typeof runs>();
    for (const r of runs) byStack.set(r.stack, [...(byStack.get(r.stack) ?? []), r]);
    for (const [, list] of byStack) {
      for (let i = 1; i < list.length; i++) {
        const previousEnd = list[i - 1].result === "interrupted" ? killedAt : list[i - 1].ended_at!;
        expect(list[i].started_at.getTime()).toBeGreaterThanOrEqual(previousEnd.getTime());
      }
    }

    // Every index on the service is in exactly one stack's state.
    const inState = await indexIdsInState();
    const all = Object.values(inState).flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual(env.emu.emulator.data.indexes.map((i) => i.record.id).sort());
    expect(Object.keys(inState).sort()).toEqual(ids);

    // A re-run of the converged tenants makes no write request.
    env.emu.resetLog();
    const rerun = await finished(
      fleet([
        "submit",
        tenantsFile(
          "good",
          good.map((id) => ({ id, rate: id === "f16" ? 20 : 10 })),
        ),
        "--wait",
      ]),
    );
    expect(rerun.code).toBe(0);
    expect(rerun.out.match(/^f\d\d\s+unchanged\s/gm)).toHaveLength(good.length);
    expect(writes(env.emu)).toBe(0);

    // SIGTERM: the workers stop gracefully.
    const alive = workers.filter((w) => w.code === null);
    for (const w of alive) w.process.kill("SIGTERM");
    for (const w of alive) expect((await finished(w)).code).toBe(0);
  },
  20 * 60_000,
);

test(
  "a stack whose fence a live worker holds is never run by another, and converges once it is free; drift reports a field changed elsewhere and changes nothing; destroy removes the tenant; SIGTERM stops the worker",
  async () => {
    const { token: t, account } = freshMessagingAccount(env);
    token = t;
    // A live holder: this test process, inside a "run" of stack tenants/g1.
    const fence = await takeFence(pg.url, "tenants/g1", { action: "converge", worker: "test-holder" });
    await finished(fleet(["submit", tenantsFile("g1", [{ id: "g1" }])]));
    const first = worker("g", 1);
    await until(
      "the worker to find the fence taken",
      () => /g1: stack tenants\/g1 is being updated by another fleet worker or driver; retrying later/.test(first.out),
      60_000,
    );
    expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
    // Recorded as a run that found the stack, which was never made: the worker's run takes it to
    // exist (fence.ts), finds it missing, and creates it.
    await fence.end({ result: "unchanged" });
    await until(
      "g1 to converge",
      async () =>
        (await status(pg.url)).some((r) => r.tenant === "g1" && /^(created|updated|unchanged)$/.test(r.state)),
      120_000,
    );
    expect(account.keys["key-g1"]?.pinned?.rate).toBe(10);
    expect(env.emu.emulator.data.indexes.filter((i) => i.record.name.startsWith("g1-search-"))).toHaveLength(1);

    // drift: a read-only check per tenant names the resource and field changed elsewhere, and changes nothing.
    const clean = await finished(fleet(["drift", tenantsFile("g1", [{ id: "g1" }])]));
    expect([clean.code, clean.out]).toEqual([
      0,
      expect.stringMatching(
        /submitted 1 drift check\n[\s\S]*1 of 1 tenants done, 0 running, 0 queued\n0 of 1 tenants drifted/,
      ),
    ]);
    account.keys["key-g1"].pinned = { parallelism: 2, rate: 99, period: 60 }; // an operator, out of band
    env.emu.resetLog();
    const drifted = await finished(fleet(["drift", tenantsFile("g1", [{ id: "g1" }])]));
    expect([drifted.code, drifted.out]).toEqual([
      3,
      expect.stringMatching(/^g1: policy drifted \(.*pin.*\)$[\s\S]*1 of 1 tenants drifted/m),
    ]);
    expect(writes(env.emu)).toBe(0);
    expect(account.keys["key-g1"].pinned?.rate).toBe(99);

    // destroy: the tenant's index goes.
    const destroyed = await finished(fleet(["destroy", tenantsFile("g1", [{ id: "g1" }]), "--wait"]));
    expect([destroyed.code, destroyed.out]).toEqual([0, expect.stringMatching(/^g1\s+destroyed\s/m)]);
    expect(env.emu.emulator.data.indexes.filter((i) => i.record.name.startsWith("g1-search-"))).toEqual([]);
    first.process.kill("SIGTERM");
    await finished(first);
    expect([first.code, first.out]).toEqual([
      0,
      expect.stringMatching(/SIGTERM: cancelling the running updates[\s\S]*stopped/),
    ]);
  },
  5 * 60_000,
);

test(
  "SIGTERM in the middle of an update: the worker cancels it gracefully, records it and exits 0; the job goes back to the queue and another worker converges the tenant",
  async () => {
    const { token: t, account } = freshMessagingAccount(env);
    token = t;
    await finished(fleet(["submit", tenantsFile("h1", [{ id: "h1" }])]));
    env.emu.emulator.controls.latencyMs = 1500;
    env.emu.resetLog();
    const first = worker("h", 1);
    await until(
      "h1's update to talk to the service",
      () => /h1: converge \(attempt 1/.test(first.out) && env.emu.requests().length > 0,
      120_000,
    );
    first.process.kill("SIGTERM");
    await finished(first);
    env.emu.emulator.controls.latencyMs = 0;
    expect([first.code, first.out]).toEqual([
      0,
      expect.stringMatching(/SIGTERM: cancelling the running updates[\s\S]*h1: (cancelled|created)[\s\S]*stopped/),
    ]);
    const runs = await sql<{ result: string | null }>(
      "SELECT result FROM pulumi_mgmt_fleet.runs WHERE stack = 'tenants/h1' ORDER BY id",
    );
    expect(runs.map((r) => r.result)).toEqual([expect.stringMatching(/^(cancelled|created)$/)]);
    const cancelled = runs[0].result === "cancelled";
    // A cancelled run's job is queued again, and nothing is left locked.
    const jobs = await sql<{ attempts: number; locked_by: string | null }>(
      "SELECT attempts, locked_by FROM graphile_worker.jobs WHERE queue_name = 'tenant:h1'",
    );
    expect(jobs).toEqual(cancelled ? [{ attempts: 1, locked_by: null }] : []);

    const second = worker("h2", 1);
    if (cancelled)
      await until(
        "h1 to converge on the other worker",
        async () =>
          (await status(pg.url)).some(
            (r) => r.tenant === "h1" && ["created", "updated", "unchanged"].includes(r.state),
          ),
        120_000,
      );
    expect(account.keys["key-h1"]?.pinned?.rate).toBe(10);
    expect(env.emu.emulator.data.indexes.filter((i) => i.record.name.startsWith("h1-search-"))).toHaveLength(1);
    second.process.kill("SIGTERM");
    expect((await finished(second)).code).toBe(0);
  },
  5 * 60_000,
);

test(
  "the fleet database stopped during an update: the worker says so at once and keeps waiting; a first SIGTERM waits, a second ends it in seconds with nothing of its run left; once the database is back another worker converges the tenant, one index",
  async () => {
    const { token: t } = freshMessagingAccount(env);
    token = t;
    await finished(fleet(["submit", tenantsFile("z1", [{ id: "z1" }])]));
    const { w, held } = workerHoldingFirstCreate("z", 1, "z1");
    await held;
    pg.halt();
    try {
      await until(
        "the worker to say the database is away",
        () => /the fleet database at 127\.0\.0\.1:\d+ is unreachable/.test(w.out),
        10_000,
      );
      env.emu.emulator.controls.openGate(); // the create commits; no state can record it
      w.process.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 3000));
      expect(w.code).toBeNull(); // a worker waits for the database to record its run
      w.process.kill("SIGTERM");
      const second = Date.now();
      await until("the worker to end", () => w.code !== null, 20_000);
      expect(Date.now() - second).toBeLessThan(10_000);
      expect([w.code, w.out]).toEqual([1, expect.stringMatching(/SIGTERM again: stopping now/)]);
      expect(fleetRunProcesses(pg.url)).toEqual([]);
    } finally {
      env.emu.emulator.controls.openGate();
      env.emu.emulator.controls.clearFaults();
      pg.resume();
    }
    const next = worker("z2", 1);
    await until("z1 to converge", async () =>
      (await status(pg.url)).some((r) => r.tenant === "z1" && /^(created|updated|unchanged)$/.test(r.state)),
    );
    expect((await indexIdsInState()).z1).toHaveLength(1);
    expect(env.emu.emulator.data.indexes.filter((i) => i.record.name.startsWith("z1-search-"))).toHaveLength(1);
    next.process.kill("SIGTERM");
    await finished(next);
  },
  6 * 60_000,
);

test(
  "a worker inside a long update is alive to the others: no other worker frees its job or runs its stack",
  async () => {
    const { token: t, account } = freshMessagingAccount(env);
    token = t;
    await finished(fleet(["submit", tenantsFile("k1", [{ id: "k1" }])]));
    // k1's pin waits at the emulator's gate for longer than the others' reaper waits before judging
    // a job's worker (10 s after the job was locked, looked at every 5 s).
    env.emu.addFault({ method: "POST", path: "/flowControl/key-k1/pin$", hold: true });
    const busy = worker("k-busy", 1, { MGMT_TIMEOUT_MS: "600000", MGMT_TOTAL_TIMEOUT_MS: "900000" });
    await env.emu.emulator.controls.heldRequests(1);
    const other = worker("k-other", 1);
    await until("the other worker to be up", () => /mgmt-fleet worker: 1 at a time/.test(other.out), 60_000);
    await new Promise((r) => setTimeout(r, 20_000));
    env.emu.emulator.controls.openGate();
    await until(
      "k1 to converge",
      async () => (await status(pg.url)).some((r) => r.tenant === "k1" && r.state === "created"),
      120_000,
    );
    expect(`${busy.out}${other.out}`).not.toMatch(/is gone|being updated by another fleet worker/);
    const runs = await sql<{ worker: string; result: string }>(
      "SELECT worker, result FROM pulumi_mgmt_fleet.runs WHERE stack = 'tenants/k1'",
    );
    expect(runs).toEqual([{ worker: expect.stringMatching(/^pool-/), result: "created" }]);
    expect(account.keys["key-k1"]?.pinned?.rate).toBe(10);
    for (const w of [busy, other]) w.process.kill("SIGTERM");
    for (const w of [busy, other]) expect((await finished(w)).code).toBe(0);
  },
  5 * 60_000,
);

test(
  "PostgreSQL restarted while workers run updates: the workers reconnect, the interrupted runs are retried, and every tenant converges once, one run at a time",
  async () => {
    const { token: t, account } = freshMessagingAccount(env);
    token = t;
    const ids = ["p1", "p2", "p3", "p4", "p5", "p6"];
    env.emu.emulator.controls.latencyMs = 300;
    await finished(
      fleet([
        "submit",
        tenantsFile(
          "restart",
          ids.map((id) => ({ id })),
        ),
      ]),
    );
    const ws = [worker("p-a"), worker("p-b")];
    // Restarted while p1's update is surely in the middle: its pin waits at the emulator's gate.
    env.emu.addFault({ method: "POST", path: "/flowControl/key-p1/pin$", hold: true });
    await env.emu.emulator.controls.heldRequests(1);
    pg.restart();
    await until(
      "p1's worker to hear its fence is lost",
      () =>
        ws.some((w) =>
          /p1: the connection to the fleet database was lost, so another worker may take the stack: cancelling its update/.test(
            w.out,
          ),
        ),
      60_000,
    );
    env.emu.emulator.controls.openGate();
    await until(
      "every job done",
      async () => {
        const rows = (await status(pg.url)).filter((r) => ids.includes(r.tenant));
        return rows.length === ids.length && rows.every((r) => r.state !== "queued" && r.state !== "running");
      },
      300_000,
    );
    env.emu.emulator.controls.latencyMs = 0;
    const rows = (await statusRows()).filter((r) => ids.includes(r.tenant));
    expect(rows.filter((r) => !["created", "updated", "unchanged"].includes(r.state))).toEqual([]);
    expect(ids.every((id) => account.keys[`key-${id}`]?.pinned?.rate === 10)).toBe(true);
    // Both workers lived through it, took their locks again, and judged nobody dead.
    expect(ws.map((w) => w.code)).toEqual([null, null]);
    for (const w of ws) expect(w.out).toMatch(/reconnected to the fleet database at 127\.0\.0\.1:\d+ after \d+s/);
    expect(ws.map((w) => w.out).join("")).not.toMatch(/is gone/);
    // One index per tenant, each in its stack's state; no stack run by two workers at once.
    const inState = await indexIdsInState();
    for (const id of ids)
      expect({
        id,
        indexes: env.emu.emulator.data.indexes
          .filter((i) => i.record.name.startsWith(`${id}-search-`))
          .map((i) => i.record.id),
      }).toEqual({ id, indexes: inState[id] });
    const runs = await sql<{
      stack: string;
      started_at: Date;
      ended_at: Date | null;
      result: string;
      error: string | null;
    }>(
      "SELECT stack, started_at, ended_at, result, error FROM pulumi_mgmt_fleet.runs WHERE stack = ANY($1) ORDER BY id",
      [ids.map((id) => `tenants/${id}`)],
    );
    expect(runs.filter((r) => r.ended_at === null)).toEqual([]);
    expect(runs.filter((r) => r.result === "interrupted")).toEqual([]);
    // The restart did cut runs in the middle: each was stopped, and its job converged later.
    expect(
      runs.filter(
        (r) =>
          r.stack === "tenants/p1" &&
          r.result === "cancelled" &&
          /connection to the fleet database was lost/.test(r.error ?? ""),
      ).length,
    ).toBe(1);
    for (const id of ids) {
      const list = runs.filter((r) => r.stack === `tenants/${id}`);
      for (let i = 1; i < list.length; i++)
        expect(list[i].started_at.getTime()).toBeGreaterThanOrEqual(list[i - 1].ended_at!.getTime());
    }
    for (const w of ws) w.process.kill("SIGTERM");
    for (const w of ws) expect((await finished(w)).code).toBe(0);
  },
  8 * 60_000,
);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const tenant = (id: string): Tenant => ({
  id,
  plan: "free",
  searchRegion: "eu-west-1",
  messagingRegion: "eu-central-1",
  flowControlKey: `key-${id}`,
  pin: { parallelism: 2, rate: 10, period: 60 },
});
const indexesOnService = (id: string) =>
  env.emu.emulator.data.indexes.filter((i) => i.record.name.startsWith(`${id}-search-`)).map((i) => i.record.id);

test(
  "a worker's node process SIGKILLed alone while its provider waits out a Retry-After: nothing of its run is alive 5 s later, and once another machine's worker has converged the tenant and the longest retry has passed, the tenant has one index, in its stack's state",
  async () => {
    const { token: t } = freshMessagingAccount(env);
    token = t;
    await finished(fleet(["submit", tenantsFile("o1", [{ id: "o1" }])]));
    // A rate-limited account: the index create is answered 429 with Retry-After 10, three times (a dead run's
    // provider, had it lived, would send its create within 3 x 13 s; the client caps a wait at 30 s).
    env.emu.addFault({ method: "POST", path: "^/v2/search$", status: 429, retryAfter: 10, times: 3 });
    env.emu.resetLog();
    const doomed = worker("o-doomed", 1);
    await until(
      "o1's create to be rate-limited",
      () => env.emu.requests({ route: "POST /v2/search" }).some((r) => r.status === 429),
      120_000,
    );
    const limitedAt = Date.now();
    process.kill(doomed.process.pid!, "SIGKILL"); // the node process alone, as the OOM killer does
    await sleep(5000);
    const leftAfter5s = fleetRunProcesses(pg.url);
    // The takeover from another machine, which cannot see (or end) the dead worker's processes.
    const other = worker("o-other", 1, {}, canFakeAnotherMachine() ? OTHER_MACHINE : []);
    await until(
      "o1 to converge",
      async () => (await status(pg.url)).some((r) => r.tenant === "o1" && r.state === "created"),
      300_000,
    );
    // The dead run's provider, had it lived, would have sent its create by now: three waits of at most 13 s.
    await sleep(limitedAt + 3 * 13_000 + 5_000 - Date.now());
    const inState = (await indexIdsInState()).o1;
    expect({ onService: indexesOnService("o1"), leftAfter5s }).toEqual({ onService: inState, leftAfter5s: [] });
    expect(inState).toHaveLength(1);
    try {
      process.kill(-doomed.process.pid!, "SIGKILL");
    } catch {
      // nothing of its group is left
    }
    // SIGTERM to the worker itself: unshare, its parent, ignores it while it waits.
    const inside = readFileSync(`/proc/${other.process.pid}/task/${other.process.pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .map(Number)[0];
    process.kill(inside || other.process.pid!, "SIGTERM");
    await finished(other);
  },
  8 * 60_000,
);

test(
  "a person's `pulumi up` holds the stack's lock while the fleet runs the stack a dead worker left open: the fleet waits, saying so in its log and in status, and never breaks the lock; the person's up ends without a lock error; afterwards every object of the tenant is in the stack's state",
  async () => {
    const { token: t, account } = freshMessagingAccount(env);
    token = t;
    // A run of m1's stack whose worker died: its row left open, and nobody holds its worker's lock.
    await ensureFleetSchema(pg.url);
    await sql(
      "INSERT INTO pulumi_mgmt_fleet.runs (stack, action, worker) VALUES ('tenants/m1', 'converge', 'pool-dead-m1')",
    );
    // The on-call person's hot-fix `up` of the same stack on the same backend, held by a slow answer
    // (for as long as the test likes: the test's quick client timeout would resend it past the gate).
    env.emu.addFault({ method: "POST", path: "/flowControl/key-m1/pin$", hold: true });
    mkdirSync(path.join(work, "person-m1"));
    const person = await mgmtStack({
      workDir: path.join(work, "person-m1"),
      projectName: TENANT_PROJECT,
      stackName: "m1",
      backendUrl: pg.url,
      mgmt: { ...env.mgmt, messagingToken: t, timeoutMs: 600_000, totalTimeoutMs: 900_000 },
      program: tenantProgram(tenant("m1")),
      passphrase: PASSPHRASE,
      offline: true,
    });
    await useTenantPlugin(person.stack.workspace, path.join(work, "person-m1"));
    const personUp = person.up();
    await env.emu.emulator.controls.heldRequests(1);
    await finished(fleet(["submit", tenantsFile("m1", [{ id: "m1" }])]));
    const w = worker("m", 1);
    await until(
      "the worker to wait for the person's lock",
      () => /m1: Pulumi's lock of stack tenants\/m1 is held by .* not by a run of the fleet: waiting up to/.test(w.out),
      90_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the worker printed:\n${w.out}`);
    });
    expect((await statusRows()).find((r) => r.tenant === "m1")).toEqual(
      expect.objectContaining({
        state: "running",
        note: expect.stringMatching(/^waiting for Pulumi's lock, held by /),
      }),
    );
    // Nothing of the fleet's own update has reached the service: only the person's create (its pin,
    // still held, is logged once answered).
    expect(
      env.emu
        .requests()
        .filter((r) => r.method !== "GET")
        .map((r) => r.route),
    ).toEqual(["POST /v2/search"]);
    env.emu.emulator.controls.openGate();
    const done = await personUp;
    expect(`${done.stdout}\n${done.stderr}`).not.toMatch(/lock/i);
    await until(
      "m1 to converge",
      async () => (await status(pg.url)).some((r) => r.tenant === "m1" && /^(updated|unchanged)$/.test(r.state)),
      180_000,
    );
    expect(
      await sql("SELECT count(*)::int AS n FROM pulumi_state WHERE key LIKE '%.pulumi/locks/%/tenants/m1/%'"),
    ).toEqual([{ n: 0 }]);
    expect((await indexIdsInState()).m1).toEqual(indexesOnService("m1"));
    expect(indexesOnService("m1")).toHaveLength(1);
    expect(account.keys["key-m1"]?.pinned?.rate).toBe(10);
    w.process.kill("SIGTERM");
    await finished(w);
  },
  6 * 60_000,
);

test("a live worker whose connection dropped is not judged dead while it reconnects", async () => {
  const holder = async () => {
    const c = new Client({ connectionString: pg.url });
    c.on("error", () => undefined);
    await c.connect();
    await c.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [workerLockName("pool-alive")]);
    return c;
  };
  const first = await holder();
  const judge = new Client({ connectionString: pg.url });
  await judge.connect();
  try {
    // The connection is cut (a failover, a proxy, an idle timeout; no server restart), and the
    // worker takes its lock again 3 s later, as its reconnect loop does.
    // node-postgres keeps the backend's process id of a connection in `processID`.
    await judge.query("SELECT pg_terminate_backend($1)", [(first as unknown as { processID: number }).processID]);
    const again = new Promise<Client>((resolve) => setTimeout(() => resolve(holder()), 3000));
    expect(await isDead(judge, "pool-alive")).toBe(false);
    await (await again).end();
    // And once nobody takes it again, the worker is gone.
    expect(await isDead(judge, "pool-alive")).toBe(true);
  } finally {
    await judge.end();
    await first.end().catch(() => undefined);
  }
}, 60_000);

test("a run that throws before its engine starts (a work folder that cannot be made) records the failure and lets the fence go", async () => {
  const tenant = {
    id: "w1x",
    plan: "free" as const,
    searchRegion: "eu-west-1" as const,
    messagingRegion: "eu-central-1" as const,
    flowControlKey: "key-w1x",
  };
  const file = path.join(work, "a-file");
  writeFileSync(file, "");
  const run = {
    database: pg.url,
    worker: "pool-test",
    workRoot: path.join(file, "under-a-file"),
    mgmt: env.mgmt,
    retries: 0,
    action: "converge" as const,
    signal: new AbortController().signal,
  };
  await expect(convergeFenced(tenant, run)).rejects.toThrow(/ENOTDIR/);
  expect(await sql("SELECT result FROM pulumi_mgmt_fleet.runs WHERE stack = 'tenants/w1x'")).toEqual([
    { result: "failed" },
  ]);
  const again = await takeFence(pg.url, "tenants/w1x", { action: "converge", worker: "pool-test" });
  expect(again.unfinished).toBe(false);
  await again.end({ result: "unchanged" });
});

test("the fence tells a run whether its stack exists, from the run records: after a run that found or made it, until a destroy succeeds", async () => {
  // What each run of tenants/e1 finds, then how it ends.
  const runs: [boolean, string][] = [
    [false, "failed"], // a first run, failed: whether it made the stack is not known
    [false, "created"],
    [true, "failed"], // a failure does not unmake the stack
    [true, "cancelled"],
    [true, "drifted"],
    [true, "destroyed"],
    [false, "unchanged"], // a converge after the destroy (which would have made the stack again)
    [true, "destroyed"],
  ];
  const found: [boolean, string][] = [];
  for (const [, result] of runs) {
    const fence = await takeFence(pg.url, "tenants/e1", { action: "converge", worker: "pool-test" });
    found.push([fence.stackExists, result]);
    await fence.end({ result });
  }
  expect(found).toEqual(runs);
});

test(
  "a run that succeeded after its fence's connection dropped leaves its next run to break the Pulumi lock it may have failed to delete; a lock after a clean run is someone else's and stays",
  async () => {
    const { token: t } = freshMessagingAccount(env);
    const tenant = {
      id: "l1",
      plan: "free" as const,
      searchRegion: "eu-west-1" as const,
      messagingRegion: "eu-central-1" as const,
      flowControlKey: "key-l1",
      pin: { parallelism: 2, rate: 10, period: 60 },
    };
    const run = {
      database: pg.url,
      worker: "pool-test",
      workRoot: path.join(work, "lock-test"),
      mgmt: { ...env.mgmt, messagingToken: t },
      retries: 0,
      action: "converge" as const,
      signal: new AbortController().signal,
      passphrase: PASSPHRASE,
    };
    // The lock Pulumi writes for the stack, as it is while an update runs (its pin held at the gate).
    env.emu.addFault({ method: "POST", path: "/flowControl/key-l1/pin$", hold: true });
    const first = convergeFenced(tenant, run);
    await env.emu.emulator.controls.heldRequests(1);
    const locks = await sql<{ key: string; data: unknown }>(
      "SELECT key, data FROM pulumi_state WHERE key LIKE '%.pulumi/locks/%/tenants/l1/%'",
    );
    env.emu.emulator.controls.openGate();
    expect(locks).toHaveLength(1);
    expect((await first).status).toBe("created");

    // A run whose fence's connection drops at its very end, while the database restarts: its update
    // succeeded, and Pulumi's delete of its lock missed the database (an error message, exit 0).
    const cut = await takeFence(pg.url, "tenants/l1", { action: "converge", worker: "pool-test" });
    // Its CLI, which took that lock, recorded its pid as it started (as a fenced run's CLI does).
    const lockedBy = JSON.parse(postgresFileText(locks[0].data)) as {
      pid: number;
    };
    await cut.recordCli([lockedBy.pid]);
    await sql(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('pulumi-mgmt-fleet:stack:tenants/l1', 0)",
    );
    await until("the fence to be lost", () => cut.lost.aborted, 10_000);
    await sql("INSERT INTO pulumi_state (key, data) VALUES ($1, $2)", [locks[0].key, JSON.stringify(locks[0].data)]);
    await cut.end({ result: "unchanged" });

    // The next run breaks that lock instead of failing for good as "locked".
    const next = await convergeFenced(tenant, run);
    expect([next.status, next.error]).toEqual(["unchanged", undefined]);
    expect(
      await sql("SELECT count(*)::int AS n FROM pulumi_state WHERE key LIKE '%.pulumi/locks/%/tenants/l1/%'"),
    ).toEqual([{ n: 0 }]);
    expect(
      (
        await sql<{ result: string; fence_lost: boolean }>(
          "SELECT result, fence_lost FROM pulumi_mgmt_fleet.runs WHERE stack = 'tenants/l1' ORDER BY id",
        )
      ).map((r) => [r.result, r.fence_lost]),
    ).toEqual([
      ["created", false],
      ["unchanged", true],
      ["unchanged", false],
    ]);

    // After a clean run, a lock is someone's outside the fleet (a person's `pulumi up`): waited for, never broken.
    await sql("INSERT INTO pulumi_state (key, data) VALUES ($1, $2)", [locks[0].key, JSON.stringify(locks[0].data)]);
    const outside = await convergeFenced(tenant, { ...run, lockWaitMs: 2000 });
    expect([outside.status, outside.error]).toEqual([
      "failed",
      expect.stringMatching(
        /^Pulumi's lock of stack tenants\/l1 is held by \S+@\S+ \(pid \d+, since [^)]+\), not by a run of the fleet: waited 2s; .*`pulumi cancel --stack l1`/,
      ),
    ]);
    expect(
      await sql("SELECT count(*)::int AS n FROM pulumi_state WHERE key LIKE '%.pulumi/locks/%/tenants/l1/%'"),
    ).toEqual([{ n: 1 }]);
  },
  3 * 60_000,
);

test("after a cancelled run the next run of the stack breaks the lock a cancel can leave behind; after a clean one it does not", async () => {
  const cancelled = await takeFence(pg.url, "tenants/c1", { action: "converge", worker: "pool-test" });
  await cancelled.end({ result: "cancelled", error: "cancelled: the connection to the fleet database was lost" });
  const next = await takeFence(pg.url, "tenants/c1", { action: "converge", worker: "pool-test" });
  expect(next.unfinished).toBe(true);
  await next.end({ result: "unchanged" });
  const clean = await takeFence(pg.url, "tenants/c1", { action: "converge", worker: "pool-test" });
  expect(clean.unfinished).toBe(false);
  await clean.end({ result: "unchanged" });
});

test(
  "a stopping worker takes no more jobs: those submitted while its update is being cancelled keep every attempt for the workers that run them",
  async () => {
    const { token: t } = freshMessagingAccount(env);
    token = t;
    await finished(fleet(["submit", tenantsFile("s1", [{ id: "s1" }])]));
    // s1's create waits at the gate: the worker's cancel waits for it, and the worker stays stopping.
    const { w, held } = workerHoldingFirstCreate("s", 2, "s1");
    let stopped = false;
    const others = ["s2", "s3"];
    try {
      await held;
      w.process.kill("SIGTERM");
      stopped = true;
      await until("the worker to stop taking jobs", () => /cancelling/i.test(w.out) || w.code !== null, 30_000);
      // Jobs submitted now: the stopping worker has a free slot, and is told of each new job.
      await finished(
        fleet([
          "submit",
          tenantsFile(
            "s-others",
            others.map((id) => ({ id })),
          ),
        ]),
      );
      await sleep(5000);
      expect(w.code).toBeNull();
      const jobs = await sql<{ key: string; attempts: number }>(
        "SELECT key, attempts FROM graphile_worker.jobs WHERE key = ANY($1) ORDER BY key",
        [others.map((id) => `tenant:${id}`)],
      );
      expect(jobs).toEqual(others.map((id) => ({ key: `tenant:${id}`, attempts: 0 })));
      expect(w.out).not.toMatch(/s[23]: this worker is stopping/);
    } finally {
      env.emu.emulator.controls.openGate();
      env.emu.emulator.controls.clearFaults();
      // A failed check above comes before the stop; a second SIGTERM would stop it for good (exit 1).
      if (!stopped) w.process.kill("SIGTERM");
      await finished(w);
      // No later worker of this file runs them.
      for (const id of ["s1", ...others]) await sql("SELECT graphile_worker.remove_job($1)", [`tenant:${id}`]);
    }
    expect(w.code).toBe(0);
  },
  5 * 60_000,
);

test("submit --wait with no worker running says at once what it waits for, and why nothing moves; a job waiting for its retry is told apart", async () => {
  const waiting = fleet(["submit", tenantsFile("nw1", [{ id: "nw1" }]), "--wait", "--max-attempts", "3"]);
  try {
    await until(
      "the first progress line",
      () =>
        /0 of 1 tenants done, 0 running, 1 queued \(no job has started yet: is a worker running\? mgmt-fleet worker\)/.test(
          waiting.out,
        ),
      30_000,
    );
    // A job that ran and waits out its retry's backoff is not one that never started.
    const [{ id, max_attempts }] = await sql<{ id: string; max_attempts: number }>(
      "SELECT id, max_attempts FROM graphile_worker.jobs WHERE key = 'tenant:nw1'",
    );
    expect(max_attempts).toBe(3);
    await sql(
      "SELECT graphile_worker.reschedule_jobs(ARRAY[$1::bigint], run_at := now() + interval '1 hour', attempts := 1)",
      [id],
    );
    await until(
      "the line for a job waiting for its retry",
      () =>
        /0 of 1 tenants done, 0 running, 1 queued \(1 waiting to be tried again after a failure: mgmt-fleet status shows why\)\n/.test(
          waiting.out,
        ),
      30_000,
    );
    // Ctrl-C ends the wait, and says the jobs go on.
    waiting.process.kill("SIGINT");
    await finished(waiting);
    expect([waiting.code, waiting.out]).toEqual([
      130,
      expect.stringMatching(
        /mgmt-fleet: stopped waiting \(SIGINT\); the jobs go on without it: mgmt-fleet status shows them\n$/,
      ),
    ]);
  } finally {
    if (waiting.code === null) waiting.process.kill("SIGINT");
    await finished(waiting);
    await sql("SELECT graphile_worker.remove_job('tenant:nw1')"); // no later worker of this file runs it
  }
});

test("status: a job not ended yet shows its own action and its previous attempt's error, never the tenant's last run's result, error or duration", async () => {
  // The tenant's last run failed; a destroy job is then submitted and, later, waits for a retry.
  await ensureFleetSchema(pg.url); // the fleet's tables, when this test runs alone (`status` makes none)
  await sql(
    "INSERT INTO pulumi_mgmt_fleet.runs (stack, action, worker, started_at, ended_at, result, error) VALUES ('tenants/st1', 'converge', 'w', now() - interval '9 seconds', now(), 'failed', 'the converge that failed before')",
  );
  const before = await statusRows();
  expect(before.find((r) => r.tenant === "st1")).toEqual(
    expect.objectContaining({ state: "failed", action: "converge", error: "the converge that failed before" }),
  );
  await finished(fleet(["destroy", tenantsFile("st1", [{ id: "st1" }])]));
  try {
    // Without --max-attempts, the documented 5 (graphile-worker's own default is 25).
    expect(await sql("SELECT max_attempts FROM graphile_worker.jobs WHERE key = 'tenant:st1'")).toEqual([
      { max_attempts: 5 },
    ]);
    expect((await statusRows()).find((r) => r.tenant === "st1")).toEqual({
      tenant: "st1",
      state: "queued",
      action: "destroy",
      attempts: 0,
    });
    // Its first attempt failed (as a worker records it) and it waits for its retry.
    await sql(
      "UPDATE graphile_worker._private_jobs SET attempts = 1, last_error = 'POST /v2/search failed: 503', run_at = now() + interval '1 hour' WHERE key = 'tenant:st1'",
    );
    const table = (await finished(fleet(["status"]))).out.split("\n");
    expect(table[0]).toMatch(/^tenant +state +action +attempts +duration +error$/);
    expect(table.find((l) => l.startsWith("st1 "))).toMatch(
      /^st1 +queued +destroy +1 +- +previous attempt: POST \/v2\/search failed: 503$/,
    );
  } finally {
    await sql("SELECT graphile_worker.remove_job('tenant:st1')"); // no later worker of this file runs it
  }
});

test("a fleet database that cannot be reached or has no such database: one line that names the fix, and never the URL's password; one with no fleet in it is told so and left as it was", async () => {
  const port = new URL(pg.url).port;
  const run = (database: string) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, "status", "--database", database], {
        cwd: PACKAGE_ROOT,
        env: { ...process.env, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE },
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      child.on("close", (code) => resolve({ code, out }));
    });
  const refused = await run("postgres://bob:S3cretPw@127.0.0.1:1/pulumi");
  expect(refused).toEqual({
    code: 1,
    out: "mgmt-fleet: the fleet database: connect ECONNREFUSED 127.0.0.1:1; check --database or MGMT_FLEET_DATABASE_URL\n",
  });
  const missing = await run(`postgres://postgres:S3cretPw@127.0.0.1:${port}/no_such_db`);
  expect(missing).toEqual({
    code: 1,
    out: `mgmt-fleet: the fleet database: database "no_such_db" does not exist; check --database or MGMT_FLEET_DATABASE_URL\n`,
  });
  // A database with no fleet in it (the wrong one named, say): status says so, and makes nothing there.
  await sql("DROP DATABASE IF EXISTS no_fleet_here");
  await sql("CREATE DATABASE no_fleet_here");
  const empty = new URL(pg.url);
  empty.pathname = "/no_fleet_here";
  expect(await run(empty.toString())).toEqual({
    code: 0,
    out: "no tenant in this fleet database yet: mgmt-fleet submit <tenants.json> adds them\n",
  });
  const other = new Client({ connectionString: empty.toString() });
  await other.connect();
  try {
    const schemas = await other.query("SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' ORDER BY 1");
    expect(schemas.rows.map((r: { nspname: string }) => r.nspname)).toEqual(["information_schema", "public"]);
  } finally {
    await other.end();
  }
});
