/**
 * Pulumi's lock of a stack, read where a self-managed backend keeps it (adapters/pulumiBackend.ts),
 * and broken only when it is provably a dead run's own.
 *
 * The lock names its holder: host, pid, user and when it was taken. It has no lease, so a run
 * that died leaves it behind; but a lock is also what a person's `pulumi up` (or another tool's)
 * holds while it works on the stack, and breaking that one runs two updates of one stack at once.
 * So a lock is broken only when it names the host of a run known to be over and a pid that run's
 * CLI had (recorded before the CLI could take the lock: automation/boundCli.ts); any other lock
 * is waited for, and never broken.
 */
import { deleteDeadRunsLock, readStackLocks, type LockHolder, type StackLock } from "./adapters/pulumiBackend";
import { seconds } from "./liveness";
import { abortableSleep } from "./waits";

/** `user@host (pid N, since T)`: who holds a lock, for the log and for an error line. */
export const describeHolder = (h: LockHolder) => `${h.username}@${h.hostname} (pid ${h.pid}, since ${h.timestamp})`;

export interface SettleOptions {
  backendUrl: string;
  project: string;
  stack: string;
  /** Whether a lock is provably a run's that is over (its host, and a pid its CLI had). */
  isDeadRunsOwn: (holder: LockHolder) => boolean;
  /** How long a lock held by anyone else is waited for. */
  waitMs: number;
  /** Lines for the operator: a lock broken, a lock waited for. */
  notice: (line: string) => void;
  /** What a status shows while the run waits (undefined once it no longer does). */
  note?: (text: string | undefined) => Promise<void> | void;
  signal?: AbortSignal;
}

/**
 * Leaves the stack unlocked, or says why it cannot: breaks each lock that is provably a dead
 * run's own, waits (at most `waitMs`) for any other to be released, and never breaks one. Returns
 * undefined once the stack is free, else one line naming the holder and the way on.
 */
export async function settleStackLock(o: SettleOptions): Promise<string | undefined> {
  const stackName = `${o.project}/${o.stack}`;
  const until = Date.now() + o.waitMs;
  let waitingFor: string | undefined;
  try {
    for (;;) {
      const locks = await readStackLocks(o.backendUrl, o.project, o.stack);
      if (locks === undefined) return undefined; // nothing to read here: the engine's own refusal says it
      const others: StackLock[] = [];
      for (const lock of locks) {
        if (!o.isDeadRunsOwn(lock.holder)) {
          others.push(lock);
          continue;
        }
        await deleteDeadRunsLock(o.backendUrl, lock);
        o.notice(
          `broke the stale Pulumi lock of stack ${stackName} left by a run that is over (${describeHolder(lock.holder)})`,
        );
      }
      if (others.length === 0) return undefined;
      const holder = others.map((l) => describeHolder(l.holder)).join(", ");
      if (Date.now() >= until || o.signal?.aborted) {
        return `Pulumi's lock of stack ${stackName} is held by ${holder}, not by a run of the fleet: waited ${seconds(o.waitMs)}; let that update finish, or run \`pulumi cancel --stack ${o.stack}\` once sure its process is gone`;
      }
      if (waitingFor !== holder) {
        o.notice(
          `Pulumi's lock of stack ${stackName} is held by ${holder}, not by a run of the fleet: waiting up to ${seconds(waitingFor === undefined ? o.waitMs : Math.max(0, until - Date.now()))} for it to be released (never broken)`,
        );
        waitingFor = holder;
        await o.note?.(`waiting for Pulumi's lock, held by ${holder}`);
      }
      await abortableSleep(1000, o.signal);
    }
  } finally {
    if (waitingFor !== undefined) await o.note?.(undefined);
  }
}
