/**
 * What the fleet reads of Linux's /proc (fleet/adapters/linuxProc.ts), held to this machine's
 * kernel with processes started for it: a child's parent, even through a program name with spaces
 * and parentheses; a zombie; one variable of a child's environment; a child's first argument.
 * Linux only, as the takeover of a dead run's processes is.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  environmentVariable,
  firstArgument,
  hasProc,
  isZombie,
  pids,
  processTable,
} from "../../fleet/adapters/linuxProc";

const started: ChildProcess[] = [];
const dir = mkdtempSync(path.join(tmpdir(), "linux-proc-"));
afterAll(() => {
  for (const p of started) p.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function child(command: string, args: string[], options: Parameters<typeof spawn>[2] = {}): number {
  const p = spawn(command, args, { stdio: "ignore", ...options });
  started.push(p);
  return p.pid!;
}

const settle = () => new Promise((r) => setTimeout(r, 300));

test("this machine has /proc", () => {
  expect(process.platform).toBe("linux");
  expect(hasProc()).toBe(true);
  expect(pids()).toContain(process.pid);
});

test("a child's parent is this process, whatever its program's name holds", async () => {
  // The kernel's name of a process (its program's file name) may hold spaces and parentheses.
  const odd = path.join(dir, "no de) (x y");
  symlinkSync(process.execPath, odd);
  const plain = child(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
  const named = child(odd, ["-e", "setTimeout(() => {}, 60000)"]);
  await settle();
  const table = processTable();
  expect(table).toContainEqual({ pid: plain, ppid: process.pid });
  expect(table).toContainEqual({ pid: named, ppid: process.pid });
  expect(table.find((p) => p.pid === process.pid)?.ppid).toBe(process.ppid);
});

test("a zombie is told from a living process", async () => {
  // `sleep 0.1` ends first, and the shell it was started by, exec'd into a long sleep, never reaps it.
  const parent = child("sh", ["-c", "sleep 0.1 & exec sleep 60"]);
  await new Promise((r) => setTimeout(r, 800));
  const orphan = processTable().find((p) => p.ppid === parent)?.pid;
  expect(orphan).toBeDefined();
  expect(isZombie(orphan!)).toBe(true);
  expect(isZombie(parent)).toBe(false);
  expect(isZombie(process.pid)).toBe(false);
});

test("one variable of a child's environment and its first argument, as it started", async () => {
  const pid = child(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], {
    env: { ...process.env, PULUMI_MGMT_FLEET_RUN: "41@abc", OTHER_VAR: "x=y" },
    argv0: "/usr/local/bin/pulumi",
  });
  await settle();
  expect(environmentVariable(pid, "PULUMI_MGMT_FLEET_RUN")).toBe("41@abc");
  expect(environmentVariable(pid, "OTHER_VAR")).toBe("x=y");
  expect(environmentVariable(pid, "PULUMI_MGMT_FLEET")).toBeUndefined();
  expect(firstArgument(pid)).toBe("/usr/local/bin/pulumi");
  expect(firstArgument(process.pid)).toBe(process.argv0);
});

test("a process that is gone reads as nothing", () => {
  const gone = 2 ** 22 + 1; // above the kernel's largest pid
  expect(isZombie(gone)).toBeUndefined();
  expect(environmentVariable(gone, "PATH")).toBeUndefined();
  expect(firstArgument(gone)).toBeUndefined();
});
