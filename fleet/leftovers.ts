/**
 * What a dead run left running on this machine. A driver or worker killed alone (`kill -9` of its
 * node process, the OOM killer) leaves its Pulumi CLIs running as orphans, and they may still
 * write to the stack; their plugins (the dynamic provider) live on even after the CLI, since the
 * CLI starts them in process groups of their own, and one waiting out a Retry-After would send
 * its request late. Every process of a fleet run carries the run's marker in its environment
 * (`runEnv`), inherited from the CLI, so the next run of the stack finds exactly those: it gives
 * their CLIs a bounded time to finish, saying so, then ends whatever of that run still lives.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { environmentVariable, firstArgument, hasProc, pids } from "./adapters/linuxProc";
import { alive } from "./processes";
import { abortableSleep } from "./waits";

const MARKER = "PULUMI_MGMT_FLEET_RUN";

/** A run's marker: its id in the run records of this fleet database (ids of two databases differ by the hash). */
function marker(database: string, runId: string): string {
  const u = new URL(database);
  return `${runId}@${createHash("sha256").update(`${u.hostname}:${u.port}${u.pathname}`).digest("hex").slice(0, 12)}`;
}

/** The environment every process of a run inherits (through the CLI the Automation API starts). */
export function runEnv(database: string, runId: string): Record<string, string> {
  return { [MARKER]: marker(database, runId) };
}

interface Leftover {
  pid: number;
  /** A Pulumi CLI (which may still write the stack's state), not a plugin or language host. */
  cli: boolean;
}

/** The live processes on this machine carrying one of these markers (Linux's /proc; none elsewhere). */
function find(markers: Set<string>): Leftover[] {
  if (!hasProc()) return [];
  const found: Leftover[] = [];
  for (const pid of pids()) {
    if (pid === process.pid) continue;
    const mark = environmentVariable(pid, MARKER);
    if (!mark || !markers.has(mark) || !alive(pid)) continue;
    const argv0 = firstArgument(pid);
    if (argv0 !== undefined) found.push({ pid, cli: path.basename(argv0) === "pulumi" });
  }
  return found;
}

export interface LeftoverOptions {
  /** How long the dead runs' CLIs get to finish before they are ended. */
  waitMs: number;
  /** Lines for the operator: what is waited for, and what was ended. */
  notice: (line: string) => void;
  signal?: AbortSignal;
}

/**
 * Waits (at most `waitMs`) for the Pulumi CLIs that the runs `runIds` left on this machine to end,
 * then kills every process of theirs still alive. Resolves when none is left (or `signal` fires).
 */
export async function endLeftovers(database: string, runIds: string[], o: LeftoverOptions): Promise<void> {
  const markers = new Set(runIds.map((id) => marker(database, id)));
  if (markers.size === 0) return;
  let left = find(markers);
  if (left.length === 0) return;
  const clis = left.filter((p) => p.cli);
  if (clis.length > 0) {
    o.notice(
      `the last run's Pulumi CLI is still running (pid ${clis.map((p) => p.pid).join(", ")}): waiting up to ${Math.round(o.waitMs / 1000)}s for it to finish`,
    );
    for (const end = Date.now() + o.waitMs; Date.now() < end && !o.signal?.aborted && find(markers).some((p) => p.cli);)
      await abortableSleep(250, o.signal);
    if (o.signal?.aborted) return;
    left = find(markers);
  }
  if (left.length === 0) return;
  for (const p of left) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  o.notice(
    `ended ${left.length} process${left.length === 1 ? "" : "es"} the last run left running (pid ${left.map((p) => p.pid).join(", ")})`,
  );
  while (!o.signal?.aborted && left.some((p) => alive(p.pid))) await abortableSleep(50, o.signal);
}
