/**
 * Pulumi's lock of a stack, read where a self-managed backend keeps it, and broken only when it is
 * provably a dead run's own.
 *
 * The lock is a file (a row, on the postgres:// backend) under
 * `.pulumi/locks/<org>/<project>/<stack>/<id>.json` naming its holder: host, pid, user and when
 * it was taken. It has no lease, so a run that died leaves it behind; but a lock is also what a
 * person's `pulumi up` (or another tool's) holds while it works on the stack, and breaking that one
 * runs two updates of one stack at once. So a lock is broken only when it names the host of a run
 * known to be over and a pid that run's CLI had (recorded before the CLI could take the lock:
 * automation/boundCli.ts); any other lock is waited for, and never broken.
 */
import { existsSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { backendFolder, isPostgres, postgresFileText } from "./diyBackend";
import { fleetClient } from "./fleetDatabase";
import { seconds } from "./liveness";
import { abortableSleep } from "./waits";

/** What Pulumi writes in a lock (the DIY backend's lockContent). */
const LockContent = z.object({
  pid: z.number().int(),
  username: z.string(),
  hostname: z.string(),
  timestamp: z.string(),
});
export type LockHolder = z.infer<typeof LockContent>;

export interface StackLock {
  /** Where the lock is: the row's key, or the file's path. */
  where: string;
  holder: LockHolder;
}

/** `user@host (pid N, since T)`: who holds a lock, for the log and for an error line. */
export const describeHolder = (h: LockHolder) => `${h.username}@${h.hostname} (pid ${h.pid}, since ${h.timestamp})`;

const parse = (where: string, text: string): StackLock => {
  const holder = LockContent.safeParse(JSON.parse(text));
  // A lock of an unknown shape is still a lock: held by nobody known, so never provably stale.
  return {
    where,
    holder: holder.success ? holder.data : { pid: -1, username: "unknown", hostname: "unknown", timestamp: "unknown" },
  };
};

/**
 * The locks of `project/stack` in a postgres:// or file:// backend; undefined for a backend whose
 * locks cannot be read from here (s3://, Pulumi Cloud, a file:// folder this process may not find as the CLI does).
 */
export async function readStackLocks(
  backendUrl: string,
  project: string,
  stack: string,
): Promise<StackLock[] | undefined> {
  if (isPostgres(backendUrl)) {
    const client = fleetClient(backendUrl);
    await client.connect();
    try {
      if (!(await client.query("SELECT to_regclass('pulumi_state') IS NOT NULL AS ok")).rows[0].ok) return [];
      const { rows } = await client.query<{ key: string; data: unknown }>(
        "SELECT key, data FROM pulumi_state WHERE key LIKE $1",
        [`%.pulumi/locks/%/${project}/${stack}/%.json`],
      );
      return rows.map((r) => parse(r.key, postgresFileText(r.data)));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  if (backendUrl.startsWith("file://")) {
    const root = backendFolder(backendUrl);
    if (root === undefined) return undefined; // a folder this process may not find as the CLI does
    const locks = path.join(root, ".pulumi", "locks");
    if (!existsSync(locks)) return [];
    const found: StackLock[] = [];
    for (const org of readdirSync(locks)) {
      const dir = path.join(locks, org, project, stack);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir).filter((n) => n.endsWith(".json")))
        found.push(parse(path.join(dir, name), readFileSync(path.join(dir, name), "utf8")));
    }
    return found;
  }
  return undefined;
}

/** Deletes one lock, exactly the one proven stale (a `pulumi cancel` deletes whatever lock is there by then). */
export async function deleteStackLock(backendUrl: string, lock: StackLock): Promise<void> {
  if (backendUrl.startsWith("file://")) return void (existsSync(lock.where) && unlinkSync(lock.where));
  const client = fleetClient(backendUrl);
  await client.connect();
  try {
    await client.query("DELETE FROM pulumi_state WHERE key = $1", [lock.where]);
  } finally {
    await client.end().catch(() => undefined);
  }
}

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
        await deleteStackLock(o.backendUrl, lock);
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
