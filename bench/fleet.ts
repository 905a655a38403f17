/**
 * Fleet throughput (`mgmt-fleet`, fleet/): how many machines a fleet of 10,000 tenants
 * needs, sized from what one machine measurably does. Measures tenants per minute converging N
 * tenants from nothing with 1, 2 and 4 worker processes at a fixed concurrency per worker (median
 * of the repeats with min and max), the machine's CPU seconds per tenant, each worker process's
 * peak memory, the time of a drift check of N unchanged tenants, and the time and CPU of an update
 * of the N tenants once they exist (each tenant's pin changed: the fleet's common run, on a known stack).
 *
 * Each run: a fresh PostgreSQL database (the job queue, the run records and the stacks' state, in
 * a throw-away cluster from scripts/postgres.sh), the emulator reset (in a process of its own, 50 ms
 * added to every request, as the service is remote), `mgmt-fleet submit`, then the workers; timed
 * from the submit until every tenant is converged. The runs of one configuration are interleaved
 * with the others so machine noise spreads over all of them. Commands run as a user runs them: the
 * installed package's bin. Writes the "fleet" section of docs/benchmarks.md.
 *
 * Before and after: BENCH_FLEET_BEFORE names another build's installed package (the folder of its
 * `pulumi-mgmt`, e.g. `<older checkout>/node_modules/pulumi-mgmt` after its `scripts/setup.sh`),
 * BENCH_FLEET_BEFORE_LABEL says what it is. Its workers then run every configuration too,
 * interleaved with this build's, and the table has a row for each build.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PACKAGE_ROOT, pulumiCliDir } from "../provider/automation";
import { CLI_GO_GC } from "../provider/automation/cli";
import { status, type TenantStatus } from "../fleet/queue";
import { PLUGIN_ENTRY } from "../provider/plugin/install";
import { markCpu, postmasterPid, splitSince, type CpuSplit } from "./cpuSplit";
import { writeSection } from "./docSection";
import { startEmulatorProcess, type EmulatorProcess } from "./emulatorProcess";
import { startPostgresCluster, type PostgresCluster } from "../scripts/postgresCluster";
import { useOwnPulumiHome } from "./ownHome";
import { median } from "./stat";
import { cpuNow, cpuSince, startupCost } from "./pluginLeg";

const N = Number(process.env.BENCH_FLEET_TENANTS ?? 24);
const REPEATS = Number(process.env.BENCH_FLEET_REPEATS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_FLEET_CONCURRENCY ?? 2);
const WORKERS = (process.env.BENCH_FLEET_WORKERS ?? "1,2,4").split(",").map(Number);
/** The drift check, then the update of every tenant, run after the converge with this many workers, with them. */
const DRIFT_WORKERS = 2;
const LATENCY_MS = 50;
const SIZING_TENANTS = 10_000;
const MACHINES = [1, 2, 4, 8];
/** Another build (BENCH_FLEET_BEFORE): a pulumi-mgmt-fleet package, or an earlier pulumi-mgmt that carries the fleet inside. */
const cliOf = (pkg: string) =>
  existsSync(path.join(pkg, "dist/cli.js"))
    ? path.join(pkg, "dist/cli.js")
    : path.join(pkg, "dist/provider/fleet/cli.js");
interface Build {
  label: string;
  cli: string;
  /** The build's own `status`, called in this process: its run records' columns are its own, and a process per poll would add to the machine's CPU. */
  status: (database: string) => Promise<TenantStatus[]>;
}
const THIS_BUILD: Build = {
  label: "this build",
  cli: path.join(PACKAGE_ROOT, "node_modules/pulumi-mgmt-fleet/dist/cli.js"),
  status,
};
const BEFORE = process.env.BENCH_FLEET_BEFORE;
/** Another build's installed package: its CLI, and its queue module for `status` (required at the first poll, after checkSettings found the build). */
function otherBuild(pkg: string): Build {
  const cli = cliOf(pkg);
  return {
    label: process.env.BENCH_FLEET_BEFORE_LABEL ?? "before",
    cli,
    status: (database) =>
      (require(path.join(path.dirname(cli), "queue.js")) as { status: Build["status"] }).status(database),
  };
}
const BUILDS: Build[] = [THIS_BUILD, ...(BEFORE ? [otherBuild(path.resolve(BEFORE))] : [])];
const CONVERGED = new Set(["created", "updated", "unchanged"]);
const POLL_MS = 500;
const TIMEOUT_MS = (5 * 60 + N * 60) * 1000;
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
useOwnPulumiHome();
const CLI_VERSION = execFileSync(path.join(pulumiCliDir(), "pulumi"), ["version"], {
  encoding: "utf8",
  env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
}).trim();

interface Sample {
  build: Build;
  workers: number;
  seconds: number;
  cpuSeconds: number;
  peakMiB: number;
  /** Where the converge's CPU went, by process. */
  split: CpuSplit;
  /** Seconds of the drift check, after the runs with DRIFT_WORKERS. */
  driftSeconds?: number;
  /** The update of every tenant after the drift check (DRIFT_WORKERS runs only). */
  update?: { seconds: number; cpuSeconds: number; split: CpuSplit };
}

interface Proc {
  child: ChildProcess;
  out: string;
  exit: Promise<number>;
}

const perMinute = (seconds: number) => (N / seconds) * 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function checkSettings(): void {
  const whole = (name: string, xs: number[]) => {
    if (!xs.every((x) => Number.isInteger(x) && x >= 1))
      throw new Error(`${name}: whole numbers from 1 expected, got ${xs.join(",")}`);
  };
  whole("BENCH_FLEET_TENANTS", [N]);
  whole("BENCH_FLEET_REPEATS", [REPEATS]);
  whole("BENCH_FLEET_CONCURRENCY", [CONCURRENCY]);
  whole("BENCH_FLEET_WORKERS", WORKERS);
  for (const b of BUILDS)
    if (!existsSync(b.cli))
      throw new Error(
        `BENCH_FLEET_BEFORE: no ${path.relative(process.cwd(), b.cli)} (give the folder of an installed pulumi-mgmt)`,
      );
  if (!WORKERS.includes(DRIFT_WORKERS))
    throw new Error(
      `BENCH_FLEET_WORKERS must include ${DRIFT_WORKERS}: the drift check runs after the converge with ${DRIFT_WORKERS} workers`,
    );
}

/** The machine's user (nice included) and system CPU seconds since boot, every process on every core. */
function machineCpuSeconds(): number {
  const [user, nice, system] = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]
    .trim()
    .split(/\s+/)
    .slice(1, 4)
    .map(Number);
  return (user + nice + system) / CLK_TCK;
}

/** A process's own peak resident memory (VmHWM), in MiB. */
function peakMiB(pid: number): number {
  const kB = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (!kB) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kB) / 1024;
}

/** `mgmt-fleet <args>` as a user runs it: the installed package's bin (of this build unless another is given). */
function fleet(args: string[], env: NodeJS.ProcessEnv, build: Build = THIS_BUILD): Proc {
  const child = spawn(process.execPath, [build.cli, ...args], { cwd: PACKAGE_ROOT, env });
  const proc: Proc = {
    child,
    out: "",
    exit: new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : -1)))),
  };
  child.stdout!.on("data", (d) => (proc.out += d));
  child.stderr!.on("data", (d) => (proc.out += d));
  return proc;
}

/** Runs `mgmt-fleet <args>` to its end; anything but exit 0 fails the bench with its output. */
async function fleetCommand(args: string[], env: NodeJS.ProcessEnv, build: Build = THIS_BUILD): Promise<void> {
  const p = fleet(args, env, build);
  const code = await p.exit;
  if (code !== 0) throw new Error(`mgmt-fleet ${args[0]} exited with ${code}:\n${p.out}`);
}

function fleetEnv(
  emu: EmulatorProcess,
  user: { username: string; password: string; messagingToken: string },
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PULUMI_CONFIG_PASSPHRASE: "bench-only",
    MGMT_BASE_URL: emu.baseUrl,
    MGMT_USERNAME: user.username,
    MGMT_PASSWORD: user.password,
    MGMT_MESSAGING_URL: emu.messagingUrl,
    MGMT_REGIONAL_MESSAGING_URL: emu.regionalMessagingUrl,
    MGMT_MESSAGING_TOKEN: user.messagingToken,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    // The installed package would otherwise look for the CLI itself (scripts/ensure-pulumi.sh).
    PULUMI_MGMT_CLI_DIR: pulumiCliDir(),
  };
}

const tail = (p: Proc) => p.out.trimEnd().split("\n").slice(-30).join("\n");

/** Resolves once every tenant is converged; a tenant failed for good, a worker gone or the timeout fails the bench. */
async function untilConverged(database: string, workers: Proc[], build: Build): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const rows = await build.status(database);
    const failed = rows.filter((r) => r.state === "failed");
    if (failed.length > 0)
      throw new Error(`tenants failed: ${failed.map((r) => `${r.tenant}: ${r.error}`).join("; ")}`);
    if (rows.length === N && rows.every((r) => CONVERGED.has(r.state))) return;
    const gone = workers.findIndex((w) => w.child.exitCode !== null || w.child.signalCode !== null);
    if (gone >= 0) throw new Error(`worker ${gone + 1} exited in the middle of the converge:\n${tail(workers[gone])}`);
    if (Date.now() > deadline)
      throw new Error(
        `not converged after ${TIMEOUT_MS / 1000} s: ${rows
          .filter((r) => !CONVERGED.has(r.state))
          .map((r) => `${r.tenant} ${r.state}`)
          .join(", ")}`,
      );
    await sleep(POLL_MS);
  }
}

/** SIGTERM to every worker; each must stop gracefully (exit 0). */
async function stopWorkers(workers: Proc[]): Promise<void> {
  for (const w of workers) w.child.kill("SIGTERM");
  const codes = await Promise.all(workers.map((w) => w.exit));
  const bad = codes.findIndex((c) => c !== 0);
  if (bad >= 0) throw new Error(`worker ${bad + 1} exited with ${codes[bad]} after SIGTERM:\n${tail(workers[bad])}`);
}

interface Rig {
  emu: EmulatorProcess;
  pg: PostgresCluster;
  work: string;
  tenantsFile: string;
  /** The same tenants, each pin's rate changed: the update after the drift check. */
  changedFile: string;
}

/** What every run pays before it works, median of 5 each. */
interface FixedCosts {
  /** CPU seconds of a Pulumi CLI that does nothing (`pulumi version`), started as the workers start theirs. */
  cli: number;
  /** CPU seconds of the plugin until it serves (prints its port). */
  plugin: number;
}

async function fixedCosts(): Promise<FixedCosts> {
  const cli: number[] = [];
  const plugin: number[] = [];
  for (let i = 0; i < 5; i++) {
    const before = cpuNow(CLK_TCK);
    const r = spawnSync(path.join(pulumiCliDir(), "pulumi"), ["version"], {
      // As the workers start their CLIs (automation/cli.ts): Go's collector set for short runs.
      env: { ...process.env, ...CLI_GO_GC, PULUMI_SKIP_UPDATE_CHECK: "true" },
    });
    if (r.status !== 0) throw new Error(`pulumi version exited with ${r.status}: ${r.stderr}`);
    cli.push(cpuSince(before, CLK_TCK).children);
    plugin.push(
      (
        await startupCost(
          path.join(PACKAGE_ROOT, "node_modules/pulumi-mgmt/dist/provider/plugin", PLUGIN_ENTRY),
          [],
          CLK_TCK,
        )
      ).cpu,
    );
  }
  return { cli: median(cli), plugin: median(plugin) };
}

let databases = 0;
function freshDatabase(rig: Rig): string {
  return rig.pg.newDatabase(`bench${++databases}`);
}

/**
 * A phase's wall time, the machine's CPU and its split by process, from now until the returned
 * function is called with the workers then running (`running`: workers already running now).
 */
function startPhase(rig: Rig, postmaster: number, running: Proc[] = []) {
  const pids = (procs: Proc[]) => procs.map((p) => p.child.pid!);
  const mark = markCpu(postmaster, rig.emu.pid, pids(running));
  const cpuBefore = machineCpuSeconds();
  const started = performance.now();
  return (procs: Proc[]) => ({
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: machineCpuSeconds() - cpuBefore,
    split: splitSince(mark, { postmaster, emulator: rig.emu.pid, workers: pids(procs) }, CLK_TCK),
  });
}

/** One run: N tenants converged from nothing by `workers` worker processes, then (with DRIFT_WORKERS) a drift check. */
async function run(rig: Rig, workers: number, build: Build): Promise<Sample> {
  const user = await rig.emu.reset(LATENCY_MS);
  const database = freshDatabase(rig);
  const env = fleetEnv(rig.emu, user);
  const postmaster = postmasterPid(rig.pg.dir);
  const converge = startPhase(rig, postmaster);
  await fleetCommand(["submit", rig.tenantsFile, "--database", database], env, build);
  const procs = Array.from({ length: workers }, () =>
    fleet(
      [
        "worker",
        "--concurrency",
        String(CONCURRENCY),
        "--work-dir",
        mkdtempSync(path.join(rig.work, "stacks-")),
        "--database",
        database,
      ],
      env,
      build,
    ),
  );
  try {
    await untilConverged(database, procs, build);
    const { seconds, cpuSeconds, split } = converge(procs);
    // VmHWM only grows: read now, it is each worker's peak over the converge, before the drift check.
    const peak = Math.max(...procs.map((p) => peakMiB(p.child.pid!)));
    let driftSeconds: number | undefined;
    let update: Sample["update"];
    if (workers === DRIFT_WORKERS) {
      const driftStarted = performance.now();
      await fleetCommand(["drift", rig.tenantsFile, "--database", database], env, build); // exit 0: nothing drifted
      driftSeconds = (performance.now() - driftStarted) / 1000;
      update = await updateAll(rig, database, env, build, procs, postmaster);
    }
    await stopWorkers(procs);
    return { build, workers, seconds, cpuSeconds, peakMiB: peak, split, driftSeconds, update };
  } finally {
    const alive = procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    for (const p of alive) p.child.kill("SIGKILL");
    await Promise.all(alive.map((p) => p.exit));
  }
}

/**
 * Every tenant's pin changed and submitted, timed until `submit --wait` returns: a CLI per tenant
 * (whichever worker takes it, the run records say its stack exists), the plugin, and a pin call.
 */
async function updateAll(
  rig: Rig,
  database: string,
  env: NodeJS.ProcessEnv,
  build: Build,
  procs: Proc[],
  postmaster: number,
): Promise<Sample["update"]> {
  const update = startPhase(rig, postmaster, procs);
  await fleetCommand(["submit", rig.changedFile, "--wait", "--database", database], env, build);
  const measured = update(procs);
  const notUpdated = (await build.status(database)).filter((r) => r.state !== "updated");
  if (notUpdated.length > 0)
    throw new Error(`after the update, not updated: ${notUpdated.map((r) => `${r.tenant} ${r.state}`).join(", ")}`);
  return measured;
}

async function main(): Promise<void> {
  checkSettings();
  const work = mkdtempSync(path.join(os.tmpdir(), "bench-fleet-"));
  const pg = startPostgresCluster("bench-fleet-pg-");
  const tenantsFile = path.join(work, "tenants.json");
  const changedFile = path.join(work, "tenants-changed.json");
  const ids = Array.from({ length: N }, (_, i) => `b${String(i + 1).padStart(2, "0")}`);
  const tenants = (rate: number) =>
    JSON.stringify(
      ids.map((id) => ({ id, plan: "free", flowControlKey: `key-${id}`, pin: { parallelism: 2, rate, period: 60 } })),
    );
  writeFileSync(tenantsFile, tenants(10));
  writeFileSync(changedFile, tenants(20));

  const samples: Sample[] = [];
  let emu: EmulatorProcess | undefined;
  try {
    emu = await startEmulatorProcess();
    const rig: Rig = { emu, pg, work, tenantsFile, changedFile };
    for (let r = 0; r < REPEATS; r++) {
      for (const [workers, build] of WORKERS.flatMap((w) =>
        (r % 2 === 0 ? BUILDS : [...BUILDS].reverse()).map((b) => [w, b] as const),
      )) {
        const which = BUILDS.length > 1 ? ` (${build.label})` : "";
        process.stdout.write(
          `run ${r + 1}/${REPEATS}${which}: ${N} tenants, ${workers} worker(s) × ${CONCURRENCY}... `,
        );
        const s = await run(rig, workers, build);
        samples.push(s);
        const drift =
          (s.driftSeconds === undefined ? "" : `; drift check ${s.driftSeconds.toFixed(1)} s`) +
          (s.update === undefined
            ? ""
            : `; update of every tenant ${s.update.seconds.toFixed(1)} s, ${(s.update.cpuSeconds / N).toFixed(1)} CPU s per tenant`);
        process.stdout.write(
          `${s.seconds.toFixed(1)} s, ${perMinute(s.seconds).toFixed(1)} tenants/min, ${(s.cpuSeconds / N).toFixed(1)} CPU s per tenant (Pulumi ${(s.split.pulumi / N).toFixed(2)}, workers ${(s.split.workers / N).toFixed(2)}, PostgreSQL ${(s.split.postgres / N).toFixed(2)}), worker peak ${s.peakMiB.toFixed(0)} MiB${drift}\n`,
        );
      }
    }
  } finally {
    await emu?.close();
    pg.stop();
    rmSync(work, { recursive: true, force: true });
  }

  const text = report(samples, await fixedCosts());
  writeSection("fleet", text);
  process.stdout.write(`\n${text}\n\nwritten to docs/benchmarks.md\n`);
}

interface Row {
  build: Build;
  workers: number;
  rates: number[];
  /** The machine's CPU busy fraction over each converge, all cores. */
  busy: number[];
  cpuPerTenant: number;
  peakMiB: number;
}

function rows(samples: Sample[], build: Build): Row[] {
  return WORKERS.map((workers) => {
    const xs = samples.filter((s) => s.workers === workers && s.build === build);
    return {
      build,
      workers,
      rates: xs.map((s) => perMinute(s.seconds)),
      busy: xs.map((s) => s.cpuSeconds / (s.seconds * os.cpus().length)),
      cpuPerTenant: median(xs.map((s) => s.cpuSeconds / N)),
      peakMiB: Math.max(...xs.map((s) => s.peakMiB)),
    };
  });
}

/** The aim: at most this many seconds of the machine's CPU per new tenant. */
const CPU_TARGET_SECONDS = 1.0;

/** The target against each worker count's median, this build's, and the other build's beside it when there is one. */
function againstTarget(rs: Row[], before: Row[]): string {
  const figures = (xs: Row[]) =>
    xs.map((r) => `${r.cpuPerTenant.toFixed(2)} s with ${r.workers} worker${r.workers === 1 ? "" : "s"}`).join(", ");
  const over = rs.filter((r) => r.cpuPerTenant > CPU_TARGET_SECONDS).map((r) => r.workers);
  const verdict = over.length === 0 ? "met in each" : `not met with ${over.join(" or ")} workers`;
  return `Against the aim, at most ${CPU_TARGET_SECONDS.toFixed(1)} s of the machine's CPU per new tenant: this build ${figures(rs)} (${verdict}).${before.length > 0 ? ` \`${BUILDS[1].label}\`, in the same interleaved runs: ${figures(before)}.` : ""}`;
}

/**
 * Whether 2 workers converge faster than 1 here, from the figures: clearly faster (10% or more, and
 * their ranges apart), or not, and then whether the CPU was already busy with 1. Empty without both.
 */
function oneOrTwo(rs: Row[]): string {
  const [one, two] = [rs.find((r) => r.workers === 1), rs.find((r) => r.workers === 2)];
  if (!one || !two) return "";
  const [r1, r2] = [median(one.rates), median(two.rates)];
  const ratio = r2 / r1;
  const busy = Math.round(median(one.busy) * 100);
  const figures = `${r2.toFixed(1)} against ${r1.toFixed(1)} tenants/min, ×${ratio.toFixed(2)}`;
  const cores = `${os.cpus().length}-core machine`;
  if (ratio >= 1.1 && Math.min(...two.rates) > Math.max(...one.rates))
    return `On this ${cores}, 2 workers converge faster than 1: ${figures}; with 1 worker the cores were busy ${busy}% of the time.`;
  if (busy >= 80)
    return `On this ${cores}, 2 workers converge no faster than 1 (${figures}): with 1 worker the cores were already busy ${busy}% of the time, so the CPU limits it.`;
  return `On this ${cores}, 2 workers converge no faster than 1 (${figures}), though with 1 worker the cores were busy only ${busy}% of the time: the limit is elsewhere, not measured here.`;
}

/** Per tenant, where the CPU of each build's converges went, by worker count: medians, and the rest of the machine. */
function splitRows(samples: Sample[]): string[] {
  return BUILDS.flatMap((build) =>
    WORKERS.map((workers) => {
      const xs = samples.filter((s) => s.workers === workers && s.build === build);
      const per = (f: (s: Sample) => number) => median(xs.map((s) => f(s) / N)).toFixed(2);
      const known = (s: Sample) => s.split.pulumi + s.split.workers + s.split.postgres + s.split.emulator;
      return `|${BUILDS.length > 1 ? ` ${build.label} |` : ""} ${workers} | ${per((s) => s.cpuSeconds)} | ${per((s) => s.split.pulumi)} | ${per((s) => s.split.workers)} | ${per((s) => s.split.postgres)} | ${per((s) => s.split.emulator)} | ${per((s) => s.cpuSeconds - known(s))} |`;
    }),
  );
}

function report(samples: Sample[], fixed: FixedCosts): string {
  const rs = rows(samples, THIS_BUILD);
  const before = BUILDS.length > 1 ? rows(samples, BUILDS[1]) : [];
  const verdict = oneOrTwo(rs);
  const best = rs.reduce((a, b) => (median(b.rates) > median(a.rates) ? b : a));
  const bestRate = median(best.rates);
  const drifts = samples.flatMap((s) =>
    s.driftSeconds === undefined || s.build !== THIS_BUILD ? [] : [s.driftSeconds],
  );
  const driftRate = perMinute(median(drifts));
  const updatesOf = (build: Build) =>
    samples.flatMap((s) => (s.update === undefined || s.build !== build ? [] : [s.update]));
  const updates = updatesOf(THIS_BUILD);
  const updateRate = perMinute(median(updates.map((u) => u.seconds)));
  /** One build's update: time, rate and CPU per tenant, medians (min – max of the time). */
  const updateFigures = (build: Build) => {
    const us = updatesOf(build);
    const secs = us.map((u) => u.seconds);
    const per = (f: (u: NonNullable<Sample["update"]>) => number) => median(us.map((u) => f(u) / N)).toFixed(2);
    return `${median(secs).toFixed(1)} s (${Math.min(...secs).toFixed(1)} – ${Math.max(...secs).toFixed(1)} s), ${perMinute(median(secs)).toFixed(1)} tenants/min, ${per((u) => u.cpuSeconds)} s of CPU per tenant (the Pulumi CLIs and plugin ${per((u) => u.split.pulumi)}, the workers ${per((u) => u.split.workers)}, PostgreSQL ${per((u) => u.split.postgres)})`;
  };
  const hours = (perMinuteOneMachine: number, machines: number) =>
    (SIZING_TENANTS / (perMinuteOneMachine * machines) / 60).toFixed(1);
  const cpu = os.cpus();
  return [
    "## Fleet (`npm run bench:fleet`)",
    "",
    `\`mgmt-fleet\` (fleet) converging ${N} tenants from nothing (a search index and a pinned flow control key each, one stack per tenant) through its job queue, with 1 to ${Math.max(...WORKERS)} worker processes of ${CONCURRENCY} concurrent tenants each on this one machine, against the emulator in a process of its own with ${LATENCY_MS} ms added to every request. Each run has a fresh PostgreSQL database (queue, run records and the stacks' state, on this machine) and is timed from \`mgmt-fleet submit\` until \`status\` shows every tenant converged; ${REPEATS === 1 ? "one run" : `median of ${REPEATS} interleaved runs`} per row. Measured on ${new Date().toISOString().slice(0, 10)}: ${cpu.length} × ${cpu[0]?.model ?? "CPU"}, Node ${process.version}, Pulumi CLI ${CLI_VERSION} for every build, with a Pulumi home new for the bench (no earlier runs' logs in it).`,
    "",
    "CPU per tenant is the machine's user and system CPU time (/proc/stat) over the converge divided by the tenants: it includes PostgreSQL, the emulator and every Pulumi process (CLIs, language hosts, provider hosts) besides the workers, and anything else the machine ran meanwhile. Peak worker memory is the largest VmHWM (peak resident memory) of the worker processes over the converge; it excludes the Pulumi CLI and plugin processes each worker starts.",
    "",
    ...(before.length > 0
      ? [
          `Two builds, their runs interleaved: this one and \`${BUILDS[1].label}\` (BENCH_FLEET_BEFORE). The figures below the table (verdict, drift check, sizing) are this build's.`,
          "",
        ]
      : []),
    `|${before.length > 0 ? " build |" : ""} worker processes | concurrency per worker | tenants/min (median) | min – max | CPU s per tenant | peak worker memory |`,
    `|${before.length > 0 ? "---|" : ""}---:|---:|---:|---:|---:|---:|`,
    ...[...rs, ...before].map(
      (r) =>
        `|${before.length > 0 ? ` ${r.build.label} |` : ""} ${r.workers} | ${CONCURRENCY} | ${median(r.rates).toFixed(1)} | ${Math.min(...r.rates).toFixed(1)} – ${Math.max(...r.rates).toFixed(1)} | ${r.cpuPerTenant.toFixed(1)} | ${Math.round(r.peakMiB)} MiB |`,
    ),
    "",
    ...(verdict ? [verdict, ""] : []),
    againstTarget(rs, before),
    "",
    `Where the CPU of a converge went, in seconds per tenant (${BUILDS.length > 1 ? "each build" : "this build"}, medians): the Pulumi CLIs with the plugin each starts, the worker processes (the job queue, the fence and the tenant programs, which run inside them), PostgreSQL (the server and every backend), the emulator, and the rest of the machine (the bench polling the queue, the kernel, anything else). Read from each process's CPU and that of the processes it reaped, not sampled.`,
    "",
    `|${BUILDS.length > 1 ? " build |" : ""} worker processes | all | Pulumi CLIs and plugin | workers | PostgreSQL | emulator | rest |`,
    `|${BUILDS.length > 1 ? "---|" : ""}---:|---:|---:|---:|---:|---:|---:|`,
    ...splitRows(samples),
    "",
    `What every run pays before it works, here (median of 5): a Pulumi CLI that does nothing (\`pulumi version\`, with the collector setting the workers start their CLIs with) ${fixed.cli.toFixed(2)} s of CPU, the plugin until it serves ${fixed.plugin.toFixed(2)} s. A new tenant's run starts two CLIs (\`stack select --create\`, which makes its stack, then \`up\`) and one plugin: ${(2 * fixed.cli + fixed.plugin).toFixed(2)} s of CPU before any work, and each CLI also derives the stack's passphrase key (\`npm run bench:cli\`, "What a Pulumi CLI's start costs").`,
    "",
    `A drift check of the ${N} unchanged tenants (\`mgmt-fleet drift\`, which submits a refresh preview per tenant and waits; nothing drifted), run by the ${DRIFT_WORKERS} workers just after their converge: ${median(drifts).toFixed(1)} s (${Math.min(...drifts).toFixed(1)} – ${Math.max(...drifts).toFixed(1)} s), ${driftRate.toFixed(1)} tenants/min.`,
    "",
    `An update of the ${N} tenants once they exist (each tenant's pinned rate changed, \`mgmt-fleet submit --wait\`; every tenant ends \`updated\`), by the same ${DRIFT_WORKERS} workers after the drift check: ${updateFigures(THIS_BUILD)}.${BUILDS.length > 1 ? ` \`${BUILDS[1].label}\`: ${updateFigures(BUILDS[1])}.` : ""} A known tenant's run starts one CLI and one plugin, ${(fixed.cli + fixed.plugin).toFixed(2)} s of CPU before any work, and its CLI derives the passphrase key once. The workers keep their folders through the three phases here, so most tenants had already run in the folder of the worker that updates them: a worker on a new machine, or a container started again with empty folders, would select each stack first, one CLI start more, but for the run records saying the stack exists (\`fence.ts\`; the CLIs counted in test/e2e/tenantRuns.test.ts).`,
    "",
    `### Sizing: ${SIZING_TENANTS.toLocaleString("en-US")} tenants`,
    "",
    `Machines like this one, each running the best-measured configuration (${best.workers} worker process${best.workers === 1 ? "" : "es"} of ${CONCURRENCY}, ${bestRate.toFixed(1)} tenants/min); the drift check and the update at their measured ${driftRate.toFixed(1)} and ${updateRate.toFixed(1)} tenants/min per machine (${DRIFT_WORKERS} workers of ${CONCURRENCY}).`,
    "",
    `| machines | converge ${SIZING_TENANTS.toLocaleString("en-US")} new tenants | one drift check of ${SIZING_TENANTS.toLocaleString("en-US")} | an update of ${SIZING_TENANTS.toLocaleString("en-US")} |`,
    "|---:|---:|---:|---:|",
    ...MACHINES.map((m) => `| ${m} | ${hours(bestRate, m)} h | ${hours(driftRate, m)} h | ${hours(updateRate, m)} h |`),
    "",
    `Assumptions, not measured: throughput grows linearly with machines, because each machine is bound by its own cores and neither PostgreSQL nor the service is the bottleneck at that rate (one PostgreSQL for the whole fleet was not measured at that load); the service answers within ${LATENCY_MS} ms as the emulator did here; tenants like the bench's, one search index and one pinned flow control key each.`,
  ].join("\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
