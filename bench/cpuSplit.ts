/**
 * Where a fleet's CPU goes, by process, exactly rather than sampled: a process's CPU is added to
 * its parent's `cutime`/`cstime` when the parent reaps it. So a worker's own ticks are the worker's
 * (its tenant programs run in it), its children's are every Pulumi CLI it ran with the plugin and
 * anything else the CLI started; PostgreSQL's are the postmaster's with the backends it reaped and
 * those still open. What the machine spent beyond these is the bench's own polling, the kernel and
 * anything else that ran.
 */
import { readFileSync, readdirSync } from "node:fs";
import { statFields, statTicks } from "./pluginLeg";

/** CPU seconds by where it went, over one converge. */
export interface CpuSplit {
  /** The Pulumi CLIs the workers ran, with the plugin and whatever else each CLI started. */
  pulumi: number;
  /** The worker processes themselves: the queue, the fence, and the tenants' inline programs. */
  workers: number;
  postgres: number;
  emulator: number;
}

const ticksOf = (pid: number) => statTicks(readFileSync(`/proc/${pid}/stat`, "utf8"));

/** The stat texts of the processes whose parent is `ppid`. */
export function childStats(ppid: number, proc = "/proc"): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(proc)) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`${proc}/${entry}/stat`, "utf8");
    } catch {
      continue; // gone since the listing
    }
    if (Number(statFields(stat)[1]) === ppid) out.push(stat);
  }
  return out;
}

/**
 * A server that forks a process per connection, in ticks: its own, those of the children it
 * reaped, and those of the children still running (each with what it reaped).
 */
export function serverTicks(pid: number, live: string[] = childStats(pid)): number {
  const self = ticksOf(pid);
  return (
    self.own +
    self.children +
    live.reduce((sum, stat) => {
      const t = statTicks(stat);
      return sum + t.own + t.children;
    }, 0)
  );
}

/** The postmaster's pid, from its data folder (scripts/postgres.sh keeps it in <dir>/data). */
export const postmasterPid = (pgDir: string) =>
  Number(readFileSync(`${pgDir}/data/postmaster.pid`, "utf8").split("\n")[0]);

/** What to read before a converge: the long-lived processes' ticks so far. */
export interface CpuMark {
  postgres: number;
  emulator: number;
  /** Workers already running at the mark (a phase after their converge), by pid: their ticks so far. */
  workers: Map<number, { own: number; children: number }>;
}

export const markCpu = (postmaster: number, emulator: number, runningWorkers: number[] = []): CpuMark => ({
  postgres: serverTicks(postmaster),
  emulator: ticksOf(emulator).own,
  workers: new Map(runningWorkers.map((pid) => [pid, ticksOf(pid)])),
});

/**
 * The split since `mark`, read once every run of the converge has ended and before the workers
 * exit (a worker started after the mark: all its ticks are the converge's; one marked: since then).
 */
export function splitSince(
  mark: CpuMark,
  ids: { postmaster: number; emulator: number; workers: number[] },
  clockTicks: number,
): CpuSplit {
  const workers = ids.workers.map((pid) => {
    const now = ticksOf(pid);
    const then = mark.workers.get(pid) ?? { own: 0, children: 0 };
    return { own: now.own - then.own, children: now.children - then.children };
  });
  return {
    pulumi: workers.reduce((s, t) => s + t.children, 0) / clockTicks,
    workers: workers.reduce((s, t) => s + t.own, 0) / clockTicks,
    postgres: (serverTicks(ids.postmaster) - mark.postgres) / clockTicks,
    emulator: (ticksOf(ids.emulator).own - mark.emulator) / clockTicks,
  };
}
