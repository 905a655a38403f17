/**
 * Where Pulumi's self-managed ("DIY") backend keeps its files, for the two backends a fleet runs
 * on: a folder (file://) or the rows of the table `pulumi_state` (postgres://), each file's bytes
 * as `{"data": "<base64>"}` under its path, prefixed by the URL's path (the database's name, as
 * the CLI's bucket is: pkg/backend/diy/backend.go, pkg/backend/diy/postgres/bucket.go).
 *
 * Read for the stack locks (stackLock.ts), and written for one thing only: a new tenant's empty
 * stack (createEmptyStack), which saves a whole CLI start and passphrase key derivation per new
 * tenant. Everything else in the backend is written by the CLI.
 */
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Client } from "pg";
import { z } from "zod";
import { fleetClient } from "./fleetDatabase";

/** A postgres:// backend's file: its bytes in base64. */
const PostgresFile = z.object({ data: z.string() });

/** The text of a postgres:// backend's row (node-postgres gives a JSON column parsed; a text one is parsed here). */
export function postgresFileText(data: unknown): string {
  return Buffer.from(PostgresFile.parse(typeof data === "string" ? JSON.parse(data) : data).data, "base64").toString(
    "utf8",
  );
}

export const isPostgres = (url: string) => /^postgres(ql)?:\/\//.test(url);

/**
 * Connection parameters node-postgres (this module) and Go's lib/pq (the CLI) read alike. Others
 * may not be: `dbname`, `search_path` or `table` name other rows, and `host`, `port` or `user`
 * given beside the URL's own win in node-postgres and lose in lib/pq.
 */
const READ_ALIKE = new Set(["sslmode", "sslrootcert", "sslcert", "sslkey", "application_name"]);

/**
 * The prefix of every key of a postgres:// backend: the URL's path and a slash (`pulumi/` for
 * `postgres://host/pulumi`); undefined when the CLI might reach another server, database or table
 * than this process: a parameter outside READ_ALIKE or given twice, no host in the URL, or the
 * environment's PGSERVICE or PGHOSTADDR, which lib/pq reads and node-postgres does not.
 */
function postgresKeyPrefix(url: string): string | undefined {
  const u = new URL(url);
  const keys = [...u.searchParams.keys()];
  if (keys.some((k) => !READ_ALIKE.has(k)) || new Set(keys).size !== keys.length) return undefined;
  if (u.hostname === "" || process.env.PGSERVICE || process.env.PGHOSTADDR) return undefined;
  const dir = decodeURIComponent(u.pathname).replace(/^\/+/, "");
  return dir === "" || dir.endsWith("/") ? dir : `${dir}/`;
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

/** The stack's checkpoint as `pulumi stack init` first writes it (the DIY backend's CreateStack): no deployment yet. */
const emptyCheckpoint = (project: string, stack: string) =>
  JSON.stringify({ version: 0, checkpoint: { stack: `organization/${project}/${stack}` } });

/** Project-scoped layout: what Pulumi writes in `.pulumi/meta.yaml` of a backend it laid out by project (its version 1). */
const PROJECT_LAYOUT = /^version:\s*1\s*$/m;

type EmptyStackResult = "created" | "exists" | "not-here";

/**
 * Makes a stack with no deployment, as `pulumi stack init` does, without a CLI; the first `up`
 * gives it its secrets provider and encryption salt, as it does for a stack whose settings file
 * is missing. Never overwrites: a stack already there, in any of the CLI's compressions, is
 * "exists", and the write itself is create-only. "not-here" when this module does not know the
 * backend's layout (another backend, a URL this process may read otherwise than the CLI, a backend
 * no CLI has opened yet or one laid out the legacy way): the caller has the CLI create the stack,
 * which decides the layout.
 *
 * The project and stack must be names the CLI stores as they are (`tenants`, and the fleet's
 * tenant ids: lowercase letters, digits and '-').
 */
export async function createEmptyStack(
  backendUrl: string,
  project: string,
  stack: string,
  signal?: AbortSignal,
): Promise<EmptyStackResult> {
  const base = `.pulumi/stacks/${project}/${stack}.json`;
  const variants = [base, `${base}.gz`, `${base}.zst`];
  const body = emptyCheckpoint(project, stack);
  if (backendUrl.startsWith("file://")) {
    const root = backendFolder(backendUrl);
    if (root === undefined) return "not-here";
    let meta: string;
    try {
      meta = readFileSync(path.join(root, ".pulumi/meta.yaml"), "utf8");
    } catch {
      return "not-here";
    }
    if (!PROJECT_LAYOUT.test(meta)) return "not-here";
    if (variants.some((key) => existsSync(path.join(root, key)))) return "exists";
    const file = path.join(root, base);
    mkdirSync(path.dirname(file), { recursive: true });
    // Whole or not at all, and only where nothing is: written aside, then linked into place (a
    // link fails where a file is). A half-written checkpoint would fail every later run's load.
    // (A name the CLI neither lists as a stack nor finds as one of this stack's files.)
    const aside = path.join(path.dirname(file), `.${stack}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    try {
      writeFileSync(aside, body);
      linkSync(aside, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return "exists";
      throw err;
    } finally {
      rmSync(aside, { force: true });
    }
    return "created";
  }
  if (!isPostgres(backendUrl)) return "not-here";
  const prefix = postgresKeyPrefix(backendUrl);
  if (prefix === undefined) return "not-here";
  // Bounded, and given up at once when the run is stopped ("not-here": the caller sees the stop):
  // a database that does not answer would hold either, as node-postgres's end() waits for its
  // answer (the connection timeout then closes the socket).
  const client = fleetClient(backendUrl, { connectionTimeoutMillis: 30_000, query_timeout: 30_000 });
  const write = writeEmptyRow(client, prefix, variants, base, body);
  let onStop = () => undefined as void;
  const stopped = new Promise<"not-here">((resolve) => {
    onStop = () => resolve("not-here");
    if (signal?.aborted) onStop();
    signal?.addEventListener("abort", onStop, { once: true });
  });
  try {
    return await Promise.race([write, stopped]);
  } finally {
    signal?.removeEventListener("abort", onStop);
    write.catch(() => undefined);
    void client.end().catch(() => undefined);
  }
}

async function writeEmptyRow(
  client: Client,
  prefix: string,
  variants: string[],
  base: string,
  body: string,
): Promise<EmptyStackResult> {
  await client.connect();
  if (!(await client.query("SELECT to_regclass('pulumi_state') IS NOT NULL AS ok")).rows[0].ok) return "not-here";
  const { rows } = await client.query<{ key: string; data: unknown }>(
    "SELECT key, data FROM pulumi_state WHERE key = ANY($1)",
    [[`${prefix}.pulumi/meta.yaml`, ...variants.map((key) => prefix + key)]],
  );
  const meta = rows.find((r) => r.key === `${prefix}.pulumi/meta.yaml`);
  if (!meta || !PROJECT_LAYOUT.test(postgresFileText(meta.data))) return "not-here";
  if (rows.length > 1) return "exists";
  // Checked again in the write itself, which narrows the window for a CLI outside the fleet making
  // a compressed variant meanwhile; it does not close it (a row not yet committed is not seen).
  // Both would be empty stacks, and the CLI takes the newer: nothing of anyone's is lost.
  const inserted = await client.query(
    `INSERT INTO pulumi_state (key, data) SELECT $1, $2
      WHERE NOT EXISTS (SELECT 1 FROM pulumi_state WHERE key = ANY($3)) ON CONFLICT (key) DO NOTHING`,
    [
      prefix + base,
      JSON.stringify({ data: Buffer.from(body).toString("base64") }),
      variants.map((key) => prefix + key),
    ],
  );
  return inserted.rowCount === 1 ? "created" : "exists";
}
