/**
 * A throw-away PostgreSQL cluster for a test file (scripts/postgres.sh installs PostgreSQL from
 * Debian's packages if needed); the script's own error (no root, no apt-get, ...) is the failure.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { PACKAGE_ROOT } from "../../provider/automation";

const SCRIPT = path.join(PACKAGE_ROOT, "scripts/postgres.sh");

export interface TestPostgres {
  dir: string;
  /** postgres://... of its database, for Pulumi's backend and for node-postgres alike. */
  url: string;
  stop(): void;
  /** Restarts the server on the same port: every connection to it drops. */
  restart(): void;
  /** Stops the server at once (pg_ctl -m immediate), keeping its data, until `resume`. */
  halt(): void;
  resume(): void;
  /** One query's rows. */
  sql<T extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  /** Each tenant stack's search index ids, from the Pulumi state the postgres:// backend keeps. */
  indexIdsInState(): Promise<Record<string, string[]>>;
}

export function startPostgres(): TestPostgres {
  const dir = mkdtempSync(path.join(tmpdir(), "pulumi-mgmt-pg-test-"));
  const url = execFileSync("bash", [SCRIPT, "start", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
    .trim()
    .split("\n")
    .pop()!;
  const sql = async <T extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    dir,
    url,
    stop: () => execFileSync("bash", [SCRIPT, "stop", dir], { stdio: "inherit" }),
    restart: () => execFileSync("bash", [SCRIPT, "restart", dir], { stdio: "inherit" }),
    halt: () => execFileSync("bash", [SCRIPT, "halt", dir], { stdio: "inherit" }),
    resume: () => execFileSync("bash", [SCRIPT, "resume", dir], { stdio: "inherit" }),
    sql,
    async indexIdsInState() {
      const rows = await sql<{ key: string; data: unknown }>(
        "SELECT key, data FROM pulumi_state WHERE key LIKE '%/.pulumi/stacks/tenants/%.json'",
      );
      const byStack: Record<string, string[]> = {};
      for (const r of rows) {
        // The backend keeps each file as {"data": "<base64 of its bytes>"}.
        const checkpoint = JSON.parse(Buffer.from((r.data as { data: string }).data, "base64").toString("utf8")) as {
          checkpoint?: { latest?: { resources?: { type: string; id?: string }[] } };
        };
        if (!checkpoint.checkpoint?.latest)
          throw new Error(`unexpected state of ${r.key}: ${JSON.stringify(checkpoint).slice(0, 300)}`);
        const resources = checkpoint.checkpoint.latest.resources ?? [];
        byStack[path.basename(r.key, ".json")] = resources
          .filter((x) => x.type === "mgmt:index:SearchIndex")
          .map((x) => x.id!);
      }
      return byStack;
    },
  };
}
