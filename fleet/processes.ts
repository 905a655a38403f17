/**
 * The processes a run leaves behind, found and ended. The Automation API starts a Pulumi CLI per
 * operation, and the CLI starts its plugins (the dynamic provider among them) in process groups
 * of their own: killing a driver or a worker's group does not reach them, and a CLI that outlives
 * its driver may still write to the stack. So a process that ends for good, or a run that takes
 * over a dead run's stack, finds them (by parentage here; by the run's marker, leftovers.ts).
 * What a process is, is read through adapters/linuxProc.ts.
 */
import { isZombie, processTable } from "./adapters/linuxProc";

/** Every process below `root` (children, their children, ...), found in one look. */
export function descendants(root: number): number[] {
  const procs = processTable();
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
  return isZombie(pid) !== true; // no /proc: kill(0) said it lives
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
