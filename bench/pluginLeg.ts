/**
 * The `mgmt` plugin's leg of `npm run bench`: the same search indexes the dynamic leg declares,
 * as a Pulumi YAML program the engine runs through Pulumi's YAML language host and the plugin
 * (installed with `installPlugin` into a folder the program names in `plugins.providers`). Also
 * the CPU a run costs, counted per process tree, and the plugin's own start-up cost.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const YAML_PROJECT = "pulumi-mgmt-bench-yaml";

/**
 * A Pulumi.yaml declaring `n` search indexes, `idx-0` to `idx-<n-1>`, named `<tag>-<i>`, as the
 * dynamic leg's program does (bench/run.ts). Every scalar that comes from outside is written as a
 * JSON string, which YAML reads as the same string whatever it holds (a path with spaces or `:`).
 */
export function searchIndexesYaml(n: number, tag: string, pluginDir: string): string {
  if (!Number.isInteger(n) || n < 1) throw new Error(`searchIndexesYaml: n must be a whole number from 1, got ${n}`);
  const q = JSON.stringify;
  const lines = [
    `name: ${YAML_PROJECT}`,
    "runtime: yaml",
    "plugins:",
    "  providers:",
    "    - name: mgmt",
    `      path: ${q(pluginDir)}`,
    "resources:",
  ];
  for (let i = 0; i < n; i++)
    lines.push(
      `  idx-${i}:`,
      "    type: mgmt:index:SearchIndex",
      "    properties:",
      `      name: ${q(`${tag}-${i}`)}`,
      "      region: eu-west-1",
      "      type: free",
    );
  return lines.join("\n") + "\n";
}

/** CPU seconds, split into this process's own and those of the children it has waited for. */
export interface CpuSample {
  self: number;
  children: number;
}

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses):
 * field 3 (state) is index 0, so utime (14) is 11, stime 12, cutime 13, cstime 14.
 */
export function statFields(stat: string): string[] {
  return stat
    .slice(stat.lastIndexOf(")") + 2)
    .trim()
    .split(/\s+/);
}

/** utime + stime and cutime + cstime of a /proc/<pid>/stat text, in clock ticks. */
export function statTicks(stat: string): { own: number; children: number } {
  const f = statFields(stat).map(Number);
  return { own: f[11] + f[12], children: f[13] + f[14] };
}

/**
 * This process's CPU so far. A child's CPU (and that of every descendant it waited for) is added
 * to its parent's when the parent reaps it: the Pulumi CLI waits for each plugin and language host
 * it closes (and the plugin launchers `exec` or wait for node), so the `children` difference over an
 * operation is its engine, provider hosts and language host, once the Automation API's CLI exited.
 */
export function cpuNow(clockTicks: number): CpuSample {
  const usage = process.cpuUsage();
  return {
    self: (usage.user + usage.system) / 1e6,
    children: statTicks(readFileSync("/proc/self/stat", "utf8")).children / clockTicks,
  };
}

export const cpuSince = (before: CpuSample, clockTicks: number): CpuSample => {
  const now = cpuNow(clockTicks);
  return { self: now.self - before.self, children: now.children - before.children };
};

export interface Startup {
  /** CPU seconds of the process (every thread) when it printed its port. */
  cpu: number;
  /** From spawn until the port was read. */
  wallMs: number;
}

/**
 * Starts `node <script> <args>` and stops it once it printed its first line (a provider prints the
 * port it serves on): its CPU to that point from /proc/<pid>/stat, read before it goes on.
 */
export function startupCost(script: string, args: string[], clockTicks: number): Promise<Startup> {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it printed its port`)));
    child.stdout!.once("data", () => {
      const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
      const cpu = statTicks(readFileSync(`/proc/${child.pid}/stat`, "utf8")).own / clockTicks;
      child.removeAllListeners("exit");
      child.once("exit", () => resolve({ cpu, wallMs }));
      child.kill("SIGKILL");
    });
  });
}

/**
 * How many CommonJS modules `node <script> <args>` has loaded when it prints its first line: a
 * probe preloaded with `-r` (not counted) counts `require.cache` at that first write. The script
 * runs as the main module, as it does for the engine: an entry that runs only as main
 * (`require.main === module`, the plugin's start.js) does nothing when merely required.
 */
export function modulesAtStartup(script: string, args: string[]): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-modules-"));
  const probe = path.join(dir, "probe.js");
  writeFileSync(
    probe,
    [
      `const Module = require("module");`,
      `process.stdout.write = () => { process.stderr.write("modules " + (Object.keys(Module._cache).length - 1) + "\\n"); process.exit(0); };`,
    ].join("\n"),
  );
  const child = spawn(process.execPath, ["-r", probe, script, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += String(d)));
  return new Promise((resolve, reject) =>
    child.once("close", () => {
      rmSync(dir, { recursive: true, force: true });
      const m = /^modules (\d+)$/m.exec(err);
      if (m) resolve(Number(m[1]));
      else reject(new Error(`counting the modules of ${script}: no count (stderr: ${err.trim().slice(0, 300)})`));
    }),
  );
}
