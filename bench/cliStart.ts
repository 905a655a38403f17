/**
 * What a Pulumi CLI costs before it does any work (`npm run bench:cli`): every fleet tenant run and
 * every engine test starts one or more, so these are the fixed costs under every other figure.
 *
 * Three measurements, each a pair of commands run alternately (the order flips every round, so
 * drift of the machine falls on both), RUNS rounds:
 * - Go's collector: `pulumi version` and a stack's creation as the helpers do it (`pulumi stack
 *   select --create`, a passphrase stack on a file backend) with Go's default and with CLI_GO_GC,
 *   the setting the automation helpers start CLIs with.
 * - The passphrase key: `pulumi config get` of a secret value against a plain one; the difference
 *   is the key's derivation, which only the secret needs.
 * - Go's package initialisation of `pulumi version` (GODEBUG=inittrace=1): all of it, and the
 *   packages that cost the most.
 * CPU is what the CLI used (user + system), read from this process's reaped children.
 * Writes the "cli-start" section of docs/benchmarks.md.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CLI_GO_GC, pulumiCliDir } from "../provider/automation/cli";
import { writeSection } from "./docSection";
import { useOwnPulumiHome } from "./ownHome";
import { cpuNow, cpuSince } from "./pluginLeg";
import { median } from "./stat";

const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 15);
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim());
/** GNU time (Debian's `time`) reports a child's peak memory; without it the table leaves memory out. */
const GNU_TIME = "/usr/bin/time";
let gnuTime: boolean | undefined;
const hasGnuTime = () =>
  (gnuTime ??= existsSync(GNU_TIME) && spawnSync(GNU_TIME, ["-f", "%M", "true"], { stdio: "ignore" }).status === 0);

/** Go's package initialisation, summed from GODEBUG=inittrace=1 lines ("init <pkg> @t ms, <clock> ms clock, ..."). */
export interface InitTrace {
  /** Wall milliseconds of every package's initialisation. */
  all: number;
  /** Wall milliseconds of the packages whose path matches each pattern. */
  matching: Record<string, number>;
  /** Bytes the packages matching each pattern allocated while initialising. */
  matchingBytes: Record<string, number>;
}

export function parseInitTrace(stderr: string, patterns: Record<string, RegExp>): InitTrace {
  const zero = () => Object.fromEntries(Object.keys(patterns).map((k) => [k, 0]));
  const trace: InitTrace = { all: 0, matching: zero(), matchingBytes: zero() };
  for (const m of stderr.matchAll(/^init (\S+) @[\d.]+ ms, ([\d.]+) ms clock, (\d+) bytes/gm)) {
    const ms = Number(m[2]);
    trace.all += ms;
    for (const [name, pattern] of Object.entries(patterns))
      if (pattern.test(m[1])) {
        trace.matching[name] += ms;
        trace.matchingBytes[name] += Number(m[3]);
      }
  }
  return trace;
}

/** Median of paired differences a[i] - b[i], each side's median, and in how many pairs b was lower. */
export function paired(a: number[], b: number[]): { a: number; b: number; diff: number; lower: number } {
  return {
    a: median(a),
    b: median(b),
    diff: median(a.map((x, i) => x - b[i])),
    lower: b.filter((x, i) => x < a[i]).length,
  };
}

interface Sample {
  cpu: number;
  peakMiB?: number;
  stderr: string;
}

/** Where the commands run: a project folder with a file backend, and the CLI. */
interface Rig {
  work: string;
  cli: string;
  env: NodeJS.ProcessEnv;
}

function rig(): Rig {
  const work = mkdtempSync(path.join(os.tmpdir(), "bench-cli-"));
  mkdirSync(path.join(work, "state"));
  writeFileSync(path.join(work, "Pulumi.yaml"), "name: bench-cli\nruntime: nodejs\n");
  // Go's settings come from each command's row, never from the bench's own environment.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k !== "GOGC" && k !== "GOMEMLIMIT" && k !== "GODEBUG"),
  );
  Object.assign(env, {
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "bench-passphrase",
  });
  return { work, cli: path.join(pulumiCliDir(), "pulumi"), env };
}

const GO_DEFAULT = {};

function run(r: Rig, args: string[], env: Record<string, string>): Sample {
  const timed = hasGnuTime();
  const options = { cwd: r.work, env: { ...r.env, ...env }, encoding: "utf8" as const };
  const before = cpuNow(CLK_TCK);
  const done = timed
    ? spawnSync(GNU_TIME, ["-f", "peak-kb %M", r.cli, ...args], options)
    : spawnSync(r.cli, args, options);
  const cpu = cpuSince(before, CLK_TCK).children;
  if (done.status !== 0)
    throw new Error(
      `pulumi ${args.join(" ")} failed (${done.error?.message ?? done.status}): ${(done.stderr ?? "").trim().split("\n").pop()}`,
    );
  const peak = /^peak-kb (\d+)$/m.exec(done.stderr);
  return { cpu, stderr: done.stderr, ...(peak ? { peakMiB: Number(peak[1]) / 1024 } : {}) };
}

/** RUNS rounds of two commands, alternating which goes first. */
function pairOf(first: () => Sample, second: () => Sample): [Sample[], Sample[]] {
  const a: Sample[] = [];
  const b: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) {
      a.push(first());
      b.push(second());
    } else {
      b.push(second());
      a.push(first());
    }
  }
  return [a, b];
}

const s = (x: number) => `${x.toFixed(2)} s`;
const peakOf = (xs: Sample[]) =>
  xs.every((x) => x.peakMiB !== undefined) ? `${Math.round(median(xs.map((x) => x.peakMiB!)))} MiB` : "n/a";

function main(r: Rig): void {
  const version = spawnSync(r.cli, ["version"], { env: r.env, encoding: "utf8" }).stdout.trim();

  let stacks = 0;
  const create = (env: Record<string, string>) => () =>
    run(r, ["stack", "select", "--create", `s${++stacks}`, "--non-interactive"], env);
  const gcRows = [
    [
      "`pulumi version`",
      pairOf(
        () => run(r, ["version"], GO_DEFAULT),
        () => run(r, ["version"], CLI_GO_GC),
      ),
    ],
    [
      "a stack's creation (`pulumi stack select --create`, passphrase, file backend)",
      pairOf(create(GO_DEFAULT), create(CLI_GO_GC)),
    ],
  ] as const;

  // One stack with a plain and a secret value: reading the secret needs the passphrase's key.
  run(r, ["stack", "init", "keyed", "--non-interactive"], CLI_GO_GC);
  run(r, ["config", "set", "--stack", "keyed", "plain", "a"], CLI_GO_GC);
  run(r, ["config", "set", "--stack", "keyed", "--secret", "hidden", "b"], CLI_GO_GC);
  const [secret, plain] = pairOf(
    () => run(r, ["config", "get", "--stack", "keyed", "hidden"], CLI_GO_GC),
    () => run(r, ["config", "get", "--stack", "keyed", "plain"], CLI_GO_GC),
  );
  const key = paired(
    secret.map((x) => x.cpu),
    plain.map((x) => x.cpu),
  );

  const patterns = { zxcvbn: /zxcvbn/, runewidth: /go-runewidth/ };
  const traces = Array.from({ length: RUNS }, () =>
    parseInitTrace(run(r, ["version"], { ...GO_DEFAULT, GODEBUG: "inittrace=1" }).stderr, patterns),
  );
  const traceMedian = (f: (t: InitTrace) => number) => median(traces.map(f));

  const cpu = os.cpus();
  const text = [
    "## What a Pulumi CLI's start costs (`npm run bench:cli`)",
    "",
    `Pulumi CLI ${version}, measured on ${new Date().toISOString().slice(0, 10)}: ${cpu.length} × ${cpu[0]?.model ?? "CPU"}, in a Pulumi home new for the bench. Each row is ${RUNS} rounds of its two commands, alternating which goes first; CPU is the CLI's user and system time, memory its peak resident size, both medians. The saving is the median of the rounds' differences (not the difference of the medians, which the machine's drift moves more), as a share of the default's median, and in how many rounds the tuned command used less.`,
    "",
    `Go's garbage collector: by default (GOGC=100) it collects whenever the heap has doubled; the automation helpers (\`mgmtStack\`, so the fleet's workers and the tenant driver) start every CLI with GOGC=${CLI_GO_GC.GOGC} and GOMEMLIMIT=${CLI_GO_GC.GOMEMLIMIT} unless the user set either (provider/automation/cli.ts). The Go plugins and language hosts a CLI starts inherit it; their memory was not measured here.`,
    "",
    `| command | CPU, Go's default | CPU, GOGC=${CLI_GO_GC.GOGC} | saved | lower in | peak memory, default | peak memory, GOGC=${CLI_GO_GC.GOGC} |`,
    "|---|---:|---:|---:|---:|---:|---:|",
    ...gcRows.map(([name, [a, b]]) => {
      const p = paired(
        a.map((x) => x.cpu),
        b.map((x) => x.cpu),
      );
      return `| ${name} | ${s(p.a)} | ${s(p.b)} | ${s(p.diff)} (${Math.round((p.diff / p.a) * 100)} %) | ${p.lower} of ${RUNS} | ${peakOf(a)} | ${peakOf(b)} |`;
    }),
    "",
    `The passphrase's key: \`pulumi config get\` of a secret value costs ${s(key.a)} of CPU against ${s(key.b)} for a plain one, ${s(key.diff)} more (median of the rounds' differences; lower for the plain one in ${key.lower} of ${RUNS}): the key's derivation (PBKDF2 with SHA-256 and 1,000,000 iterations, Pulumi's \`NewSymmetricCrypterFromPassphrase\`), which Pulumi keeps for one process only. Every CLI that opens a passphrase-protected stack's secrets manager pays it once, whether or not the stack holds a secret: the stack's creation, and each \`up\`, \`preview\`, \`refresh\` and \`destroy\` (they load the stack's configuration, which builds the manager). A fleet tenant's run pays it in each of its CLIs: a known tenant's once, in its operation, a new tenant's twice (its stack's creation, then its operation); a stack on a KMS secrets provider (\`awskms://\`, \`gcpkms://\`, \`azurekeyvault://\`, \`hashivault://\`) pays a request to the KMS instead. Offline, as here and in every test, a passphrase is the only secrets provider there is.`,
    "",
    `Go's package initialisation of \`pulumi version\` with Go's default collector (GODEBUG=inittrace=1, wall time, median of ${RUNS}; wall time follows the machine's speed more than CPU time does):`,
    "",
    "| packages initialised at start | ms | MB allocated |",
    "|---|---:|---:|",
    `| all of them | ${Math.round(traceMedian((t) => t.all))} | |`,
    `| the password-strength word lists of \`nbutton23/zxcvbn-go\` (\`pulumi config\`'s "looks like a secret" check) and \`ccojocar/zxcvbn-go\` (the \`esc\` commands'), decoded from JSON | ${Math.round(traceMedian((t) => t.matching.zxcvbn))} | ${(traceMedian((t) => t.matchingBytes.zxcvbn) / 1e6).toFixed(0)} |`,
    `| \`mattn/go-runewidth\`'s width tables | ${Math.round(traceMedian((t) => t.matching.runewidth))} | ${(traceMedian((t) => t.matchingBytes.runewidth) / 1e6).toFixed(1)} |`,
    "",
    "These are Pulumi's own dependencies, the same in its releases (still imported by v3.274.1). The repository builds Pulumi's modules as they are, so tests and benches run the CLI users run: a patched CLI would report costs no user has. A collector setting changes no behaviour, only when Go collects; the same binary runs.",
  ].join("\n");
  writeSection("cli-start", text);
  process.stdout.write(`${text}\n\nwritten to docs/benchmarks.md\n`);
}

if (require.main === module) {
  useOwnPulumiHome();
  const r = rig();
  try {
    main(r);
  } finally {
    rmSync(r.work, { recursive: true, force: true });
  }
}
