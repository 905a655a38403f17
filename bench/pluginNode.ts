/**
 * `npm run bench:plugin-node`: the `mgmt` plugin against the dynamic resources from the same
 * Node.js inline program, the way the fleet's tenant program runs (an inline program in the
 * driver's or worker's process, fleet/tenantResources.ts). `npm run bench` compares the plugin
 * through a YAML program instead, whose host is a program of its own with costs of its own; this
 * one isolates the provider: the same program, the same driver, only the front door differs.
 *
 * PHASE_N search indexes per stack, REPS runs, the two legs interleaved (their order alternating);
 * CPU is the driver's own plus every process it waited for (the CLI, and the provider processes
 * the CLI waited for): bench/pluginLeg.ts. State: bytes per index in the checkpoint.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { SearchIndex } from "../provider";
import { mgmtStack, type MgmtConfig, type MgmtStack } from "../provider/automation";
import { installPlugin, pluginCacheDir } from "../provider/plugin/install";
import { token } from "../provider/plugin/pulumiTypes";
import { writeSection } from "./docSection";
import { useOwnPulumiHome } from "./ownHome";
import { startEmulatorProcess } from "./emulatorProcess";
import { cpuNow, cpuSince } from "./pluginLeg";
import { searchIndexStateSplit, type StateSplit } from "./stateSize";
import { stat, type Stat } from "./stat";

const N = Number(process.env.BENCH_PHASE_N ?? "200");
const REPS = Number(process.env.BENCH_REPS ?? "5");
const LATENCY_MS = 50;
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
const PHASES = ["up", "preview", "refresh", "destroy"] as const;
type Phase = (typeof PHASES)[number];
type Leg = "dynamic" | "plugin";

/** A search index of the plugin, declared as its generated Node.js SDK declares one. */
class PluginSearchIndex extends pulumi.CustomResource {
  constructor(name: string, args: Record<string, string>) {
    super(token("SearchIndex"), name, args);
  }
}

const program = (leg: Leg, tag: string) => async () => {
  for (let i = 0; i < N; i++) {
    const args = { name: `${tag}-${i}`, region: "eu-west-1", type: "free" } as const;
    if (leg === "plugin") new PluginSearchIndex(`idx-${i}`, args);
    else new SearchIndex(`idx-${i}`, args);
  }
};

type PerPhase = Record<Phase, Record<Leg, number[]>>;
const perPhase = (): PerPhase => {
  const legs = () => ({ dynamic: [], plugin: [] });
  return { up: legs(), preview: legs(), refresh: legs(), destroy: legs() };
};

async function main(): Promise<void> {
  const emu = await startEmulatorProcess();
  // Both legs in the bench's own Pulumi home, where the engine finds the plugin by its name.
  const home = useOwnPulumiHome();
  installPlugin(pluginCacheDir({ PULUMI_HOME: home }));
  const cpu = perPhase();
  const wall = perPhase();
  const state: Partial<Record<Leg, StateSplit>> = {};
  try {
    for (let rep = 0; rep < REPS; rep++) {
      for (const leg of rep % 2 === 0 ? (["dynamic", "plugin"] as const) : (["plugin", "dynamic"] as const)) {
        const user = await emu.reset(LATENCY_MS);
        const mgmt: MgmtConfig = {
          baseUrl: emu.baseUrl,
          messagingUrl: emu.messagingUrl,
          regionalMessagingUrl: emu.regionalMessagingUrl,
          ...user,
        };
        const backendDir = mkdtempSync(path.join(os.tmpdir(), "pulumi-mgmt-bench-"));
        const s: MgmtStack = await mgmtStack({
          stackName: `${leg}-${rep}`,
          projectName: "pulumi-mgmt-bench-node",
          mgmt,
          backendDir,
          passphrase: "bench-only",
          offline: true,
          program: program(leg, `${leg[0]}${rep}`),
        });
        const timed = async (phase: Phase, f: () => Promise<unknown>) => {
          const before = cpuNow(CLK_TCK);
          const start = Date.now();
          await f();
          const used = cpuSince(before, CLK_TCK);
          cpu[phase][leg].push(used.self + used.children);
          wall[phase][leg].push((Date.now() - start) / 1000);
        };
        await timed("up", async () => {
          const created = (await s.up()).summary.resourceChanges?.create ?? 0;
          if (created < N) throw new Error(`the up of ${leg}-${rep} created ${created} resources, not ${N}`);
        });
        if (rep === 0) state[leg] = searchIndexStateSplit(s.backendDirFiles());
        await timed("preview", () => s.stack.preview());
        await timed("refresh", () => s.refresh());
        await timed("destroy", () => s.destroy());
        await s.stack.workspace.removeStack(s.stack.name);
        rmSync(backendDir, { recursive: true, force: true });
        // The folder the SDK made for the inline program (automation-*), which it never removes.
        rmSync(s.stack.workspace.workDir, { recursive: true, force: true });
        process.stdout.write(
          `  run ${rep + 1}/${REPS} ${leg}: ${PHASES.map((p) => `${p} ${cpu[p][leg][rep].toFixed(1)} CPU s`).join(", ")}\n`,
        );
      }
    }
  } finally {
    await emu.close();
  }
  if (JSON.stringify(state.plugin).includes("__provider") || state.plugin!.provider !== 0)
    throw new Error("the plugin's state holds a __provider field");
  writeSection("plugin-node", report(cpu, wall, state as Record<Leg, StateSplit>));
  process.stdout.write("wrote the plugin-node section of docs/benchmarks.md\n");
}

const s1 = (x: number) => `${x.toFixed(1)} s`;
const range = (st: Stat, f: (x: number) => string) => `${f(st.median)} (${f(st.min)}–${f(st.max)})`;

function report(cpu: PerPhase, wall: PerPhase, state: Record<Leg, StateSplit>): string {
  const rows = PHASES.map((p) => {
    const ratio = stat(cpu[p].plugin.map((x, i) => x / cpu[p].dynamic[i]));
    return `| ${p} | ${range(stat(cpu[p].dynamic), s1)} | ${range(stat(cpu[p].plugin), s1)} | **${ratio.median.toFixed(2)}** (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}) | ${s1(stat(wall[p].dynamic).median)} | ${s1(stat(wall[p].plugin).median)} |`;
  });
  const bytes = (leg: Leg) => {
    const st = state[leg];
    return `| ${leg === "plugin" ? "`mgmt` plugin" : "dynamic resources"} | ${st.total} | ${st.provider} | ${st.inputs} | ${st.outputs} | ${st.sourceTrace} |`;
  };
  return [
    "## Through the plugin from Node.js (`npm run bench:plugin-node`)",
    "",
    `The same Node.js inline program declaring ${N} search indexes, once as dynamic resources and once through the \`mgmt\` plugin (a \`CustomResource\` of \`mgmt:index:SearchIndex\`, as the generated Node.js SDK and the fleet's tenant program declare it), against the emulator in a process of its own with ${LATENCY_MS} ms added to every request; ${REPS} runs, the two interleaved. CPU: the driver's own and every process it waited for (CLI, provider processes), as in the plugin leg above. Measured on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? "CPU"}, Node ${process.version}.`,
    "",
    "| operation | CPU, dynamic | CPU, plugin | plugin / dynamic (paired) | wall, dynamic | wall, plugin |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows,
    "",
    "State per index (bytes, first run; the source trace is the Node.js SDK's call stack of each registration):",
    "",
    "| front door | total | `__provider` | inputs | outputs | source trace |",
    "|---|---:|---:|---:|---:|---:|",
    bytes("dynamic"),
    bytes("plugin"),
  ].join("\n");
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:plugin-node: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
