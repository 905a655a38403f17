/**
 * What the fleet reads of Pulumi's self-managed ("DIY") backend, and nothing else reads it: a
 * stack's locks, where the CLI keeps them, in the two backends a fleet runs on: a folder (file://)
 * or the rows of the table `pulumi_state` (postgres://), each file's bytes as `{"data": "<base64>"}`
 * under its path, prefixed by the URL's path (the CLI's pkg/backend/diy: lock.go, and
 * postgres/bucket.go). The one write: deleting a lock proven to be a dead run's own, alone, as
 * `pulumi cancel` deletes every lock of the stack. Everything else in the backend is the CLI's.
 *
 * test/unit/pulumiBackend.test.ts holds each supported CLI to this layout: it has the CLI take a
 * stack's lock on both backends and finds it here.
 */
import { existsSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { fleetClient } from "../fleetDatabase";

export const isPostgres = (url: string) => /^postgres(ql)?:\/\//.test(url);

/** A postgres:// backend's file: its bytes in base64. */
const PostgresFile = z.object({ data: z.string() });

/** The text of a postgres:// backend's row (node-postgres gives a JSON column parsed; a text one is parsed here). */
export function postgresFileText(data: unknown): string {
  return Buffer.from(PostgresFile.parse(typeof data === "string" ? JSON.parse(data) : data).data, "base64").toString(
    "utf8",
  );
}

/**
 * The folder of a file:// backend, when this process reads it as the CLI does: an absolute path
 * with nothing to decode (a relative one the CLI resolves against its own working directory, and
 * `~`, `%` escapes and `#` it reads its own way).
 */
export function backendFolder(url: string): string | undefined {
  const root = url.slice("file://".length).replace(/\?.*$/, "");
  return path.isAbsolute(root) && !/[%#]/.test(root) ? root : undefined;
}

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

const parse = (where: string, text: string): StackLock => {
  const holder = LockContent.safeParse(JSON.parse(text));
  // A lock of an unknown shape is still a lock: held by nobody known, so never provably stale.
  return {
    where,
    holder: holder.success ? holder.data : { pid: -1, username: "unknown", hostname: "unknown", timestamp: "unknown" },
  };
};

/**
 * The locks of `project/stack`, each under `.pulumi/locks/<org>/<project>/<stack>/<id>.json`;
 * undefined for a backend whose locks cannot be read from here (s3://, Pulumi Cloud, a file://
 * folder this process may not find as the CLI does).
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
    if (root === undefined) return undefined;
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

/**
 * Deletes one lock, exactly the one the caller proved a dead run's own (a `pulumi cancel` deletes
 * whatever lock is there by then): the only write the fleet makes to the backend.
 */
export async function deleteDeadRunsLock(backendUrl: string, lock: StackLock): Promise<void> {
  if (backendUrl.startsWith("file://")) return void (existsSync(lock.where) && unlinkSync(lock.where));
  const client = fleetClient(backendUrl);
  await client.connect();
  try {
    await client.query("DELETE FROM pulumi_state WHERE key = $1", [lock.where]);
  } finally {
    await client.end().catch(() => undefined);
  }
}
