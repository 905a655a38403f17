/**
 * The processes a run leaves behind, found and ended. The Automation API starts a Pulumi CLI per
 * operation, and the CLI starts its plugins (the dynamic provider among them) in process groups
 * of their own: killing a driver or a worker's group does not reach them, and a CLI that outlives
 * its driver may still write to the stack. So a process that ends for good, or a run that takes
 * over a dead run's stack, finds them (by parentage here; by the run's marker, leftovers.ts).
 *
 * Linux's /proc where there is one, `ps` elsewhere (macOS).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

interface Proc {
  pid: number;
  ppid: number;
}

function table(): Proc[] {
  if (existsSync("/proc/self/stat")) {
    const procs: Proc[] = [];
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        procs.push({ pid: Number(name), ppid });
      } catch {
        // gone meanwhile
      }
    }
    return procs;
  }
  return execFileSync("ps", ["-A", "-o", "pid=", "-o", "ppid="], { encoding: "utf8" })
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([pid, ppid]) => Number.isInteger(pid) && Number.isInteger(ppid))
    .map(([pid, ppid]) => ({ pid, ppid }));
}

/** Every process below `root` (children, their children, ...), found in one look. */
export function descendants(root: number): number[] {
  const procs = table();
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const p of procs) {
      if (p.ppid === parent && !found.includes(p.pid)) {
        found.push(p.pid);
        queue.push(p.pid);
      }
    }
  }
  return found;
}

/** Whether a process lives (a zombie counts as gone: it runs nothing). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true; // no /proc: kill(0) said it lives
  }
}

/** SIGKILLs every process below `root` (and `root` itself if asked), all found before the first dies (an orphan is no longer anyone's child). */
export function killTree(root: number, includeRoot: boolean): number[] {
  const victims = [...descendants(root), ...(includeRoot ? [root] : [])];
  for (const pid of victims) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  return victims;
}
