/**
 * What a dead run left running (fleet/leftovers.ts), with stand-in processes: a `pulumi`
 * that finishes by itself is waited for, one that does not is ended at the bound, a plugin (any
 * other process of the run) is ended once its CLI is gone, and another run's processes are never
 * touched. Linux only (it reads /proc), like the takeover itself.
 */
import { spawn, type ChildProcess } from "node:child_process";

import { endLeftovers, runEnv } from "../../fleet/leftovers";
import { alive } from "../../fleet/processes";

const DB = "postgres://u@127.0.0.1:5999/fleet";
const started: ChildProcess[] = [];

afterAll(() => {
  for (const p of started) p.kill("SIGKILL");
});

/** A process of run `runId`: a CLI (argv[0] `/usr/local/bin/pulumi`, as the real one's basename) or a plugin, living `seconds`. */
function proc(runId: string, kind: "cli" | "plugin", seconds: number): number {
  const env = { ...process.env, ...runEnv(DB, runId) };
  const child = spawn(process.execPath, ["-e", `setTimeout(() => {}, ${seconds * 1000})`], {
    env,
    ...(kind === "cli" ? { argv0: "/usr/local/bin/pulumi" } : {}),
  });
  started.push(child);
  return child.pid!;
}

const gone = async (pid: number) => {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
};

test("a dead run's CLI that finishes by itself is waited for; its plugins are ended after it", async () => {
  const cli = proc("41", "cli", 1);
  const plugin = proc("41", "plugin", 600);
  const other = proc("42", "plugin", 600); // another run's: never touched
  await new Promise((r) => setTimeout(r, 200));
  const lines: string[] = [];
  const t0 = Date.now();
  await endLeftovers(DB, ["41"], { waitMs: 30_000, notice: (l) => lines.push(l) });
  expect(Date.now() - t0).toBeLessThan(10_000); // the CLI ended by itself after about 1 s
  expect(lines[0]).toBe(`the last run's Pulumi CLI is still running (pid ${cli}): waiting up to 30s for it to finish`);
  expect(lines[1]).toBe(`ended 1 process the last run left running (pid ${plugin})`);
  expect(await gone(plugin)).toBe(true);
  expect(alive(other)).toBe(true);
});

test("a dead run's CLI that is still running at the bound is ended, with every process of its run", async () => {
  const cli = proc("43", "cli", 600);
  const plugin = proc("43", "plugin", 600);
  await new Promise((r) => setTimeout(r, 200));
  const lines: string[] = [];
  const t0 = Date.now();
  await endLeftovers(DB, ["43"], { waitMs: 1500, notice: (l) => lines.push(l) });
  expect(Date.now() - t0).toBeGreaterThanOrEqual(1500);
  expect(lines[1]).toMatch(
    new RegExp(`^ended 2 processes the last run left running \\(pid (${cli}, ${plugin}|${plugin}, ${cli})\\)$`),
  );
  expect([await gone(cli), await gone(plugin)]).toEqual([true, true]);
});

test("no run left behind, or none of its processes alive: nothing is said or done", async () => {
  const lines: string[] = [];
  await endLeftovers(DB, [], { waitMs: 1000, notice: (l) => lines.push(l) });
  await endLeftovers(DB, ["44"], { waitMs: 1000, notice: (l) => lines.push(l) });
  expect(lines).toEqual([]);
});
