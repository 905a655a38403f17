/**
 * Summary of a `npm run bench:profile` run (scripts/profile-up.sh): CPU per process of an `up` of
 * N sleep-only resources against an `up` of N search indexes, so that a gap in `npm run bench` can
 * be traced to the process that pays it. Node processes come from V8 profiles (preload.cjs), the
 * engine from the CLI's own `--profiling` (read with `go tool pprof`).
 *
 * Usage: node dist/bench/profile/summary.js <profile dir> (holding sleep/ and index/)
 */
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";

interface V8Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  meta: { script: string };
}

const VARIANTS = ["sleep", "index"] as const;

/** Sampled CPU in ms, idle excluded. */
function nodeBusy(profile: V8Profile): number {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  let micros = 0;
  profile.samples.forEach((id, i) => {
    if (!idle.has(id)) micros += profile.timeDeltas[i] ?? 0;
  });
  return micros / 1000;
}

interface Row {
  label: string;
  ms: Record<(typeof VARIANTS)[number], number>;
}

function nodeRows(dir: string): Row[] {
  const byVariant = Object.fromEntries(
    VARIANTS.map((v) => {
      const profiles = readdirSync(path.join(dir, v))
        .filter((f) => f.endsWith(".cpuprofile"))
        .map((f) => JSON.parse(readFileSync(path.join(dir, v, f), "utf8")) as V8Profile)
        .sort((a, b) => a.startTime - b.startTime);
      const hosts = profiles.filter((p) => p.meta.script.includes("dynamic-provider"));
      const driver = profiles.filter((p) => p.meta.script.includes("bench/shape"));
      return [v, { up: hosts[0], destroy: hosts[1], driver: driver[0] }];
    }),
  );
  const row = (label: string, pick: (x: (typeof byVariant)[string]) => V8Profile | undefined): Row => ({
    label,
    ms: { sleep: busyOf(pick(byVariant.sleep)), index: busyOf(pick(byVariant.index)) },
  });
  return [
    row("provider host of the `up`", (x) => x.up),
    row("provider host of the `destroy` after it", (x) => x.destroy),
    row("driver: program, emulator, Automation API (start, `up` and `destroy`)", (x) => x.driver),
  ];
}

function busyOf(p: V8Profile | undefined): number {
  return p ? nodeBusy(p) : NaN;
}

/** The engine's sampled CPU and the part spent in its snapshot service loop (one goroutine). */
function engineMs(dir: string, variant: string): { total: number; snapshots: number } {
  const file = readdirSync(path.join(dir, variant)).find((f) => f.endsWith(".cpu"));
  if (!file) throw new Error(`no engine profile in ${path.join(dir, variant)}`);
  const top = execFileSync("go", ["tool", "pprof", "-top", "-cum", "-nodecount=400", path.join(dir, variant, file)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const seconds = (s: string) => (s.endsWith("ms") ? Number(s.slice(0, -2)) : Number(s.slice(0, -1)) * 1000);
  const total = seconds(/Total samples = ([\d.]+m?s)/.exec(top)?.[1] ?? "NaNs");
  const loop = top.split("\n").find((l) => l.includes("SnapshotManager).defaultServiceLoop"));
  const snapshots = loop ? seconds(loop.trim().split(/\s+/)[3]) : NaN;
  return { total, snapshots };
}

function main(): void {
  const dir = process.argv[2];
  const engine = Object.fromEntries(VARIANTS.map((v) => [v, engineMs(dir, v)]));
  const rows: Row[] = [
    { label: "engine (`pulumi up`)", ms: { sleep: engine.sleep.total, index: engine.index.total } },
    {
      label: "… of it the snapshot saves after each step (one goroutine, serial)",
      ms: { sleep: engine.sleep.snapshots, index: engine.index.snapshots },
    },
    ...nodeRows(dir),
  ];
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const lines = [
    "| process | sleep-only | SearchIndex | difference |",
    "|---|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.label} | ${s(r.ms.sleep)} | ${s(r.ms.index)} | ${r.ms.index - r.ms.sleep >= 0 ? "+" : ""}${s(r.ms.index - r.ms.sleep)} |`,
    ),
  ];
  process.stdout.write(`\nCPU per process (sampled; profiles in ${dir}):\n\n${lines.join("\n")}\n`);
}

main();
