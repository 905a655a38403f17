/**
 * What the fleet reads of Linux's /proc, and nothing else reads it: the live processes, each one's
 * parent and state (`/proc/<pid>/stat`), its first argument (`/proc/<pid>/cmdline`) and one
 * variable of its environment (`/proc/<pid>/environ`). Elsewhere (macOS) `ps` gives the parents,
 * and nothing gives another process's environment. test/unit/linuxProc.test.ts holds this
 * machine's kernel to this layout, with processes started for it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** Whether this machine has Linux's /proc (the environment of another process is readable only there). */
export const hasProc = () => existsSync("/proc/self/stat");

/**
 * A process's parent and state, from `/proc/<pid>/stat`: "pid (comm) state ppid ...", where comm
 * may hold spaces and parentheses, so the fields are read after the last ")".
 */
function stat(pid: number): { state: string; ppid: number } {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state, ppid: Number(ppid) };
}

/** The pids of the processes alive now (those gone meanwhile may still be listed). */
export function pids(): number[] {
  if (!hasProc()) return psTable().map((p) => p.pid);
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** Every process with its parent, in one look. */
export function processTable(): { pid: number; ppid: number }[] {
  if (!hasProc()) return psTable();
  const procs: { pid: number; ppid: number }[] = [];
  for (const pid of pids()) {
    try {
      procs.push({ pid, ppid: stat(pid).ppid });
    } catch {
      // gone meanwhile
    }
  }
  return procs;
}

function psTable(): { pid: number; ppid: number }[] {
  return execFileSync("ps", ["-A", "-o", "pid=", "-o", "ppid="], { encoding: "utf8" })
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([pid, ppid]) => Number.isInteger(pid) && Number.isInteger(ppid))
    .map(([pid, ppid]) => ({ pid, ppid }));
}

/** Whether a process is a zombie (ended, not yet reaped); undefined where there is no /proc or it is gone. */
export function isZombie(pid: number): boolean | undefined {
  try {
    return stat(pid).state === "Z";
  } catch {
    return undefined;
  }
}

/** One variable of a process's environment as it started; undefined when unset, gone or not ours to read. */
export function environmentVariable(pid: number, name: string): string | undefined {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .find((e) => e.startsWith(`${name}=`));
    return entry?.slice(name.length + 1);
  } catch {
    return undefined;
  }
}

/** A process's first argument (its program as started); undefined when gone or not ours to read. */
export function firstArgument(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
  } catch {
    return undefined;
  }
}
