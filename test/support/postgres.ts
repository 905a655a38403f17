/** A throw-away PostgreSQL cluster for a test file (scripts/postgresCluster.ts), with what tests ask of it. */
import path from "node:path";
import { Client } from "pg";
import { postgresFileText } from "../../fleet/adapters/pulumiBackend";
import { startPostgresCluster } from "../../scripts/postgresCluster";

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
  /** One query's rows, in the cluster's `pulumi` database or in the one `url` names. */
  sql<T extends Record<string, unknown>>(text: string, values?: unknown[], url?: string): Promise<T[]>;
  /** Each tenant stack's search index ids, from the Pulumi state the postgres:// backend keeps. */
  indexIdsInState(): Promise<Record<string, string[]>>;
}

export function startPostgres(): TestPostgres {
  const cluster = startPostgresCluster("pulumi-mgmt-pg-test-");
  const { dir, url } = cluster;
  const sql = async <T extends Record<string, unknown>>(
    text: string,
    values: unknown[] = [],
    database = url,
  ): Promise<T[]> => {
    const client = new Client({ connectionString: database });
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
    stop: () => cluster.stop(),
    restart: () => cluster.command("restart"),
    halt: () => cluster.command("halt"),
    resume: () => cluster.command("resume"),
    sql,
    async indexIdsInState() {
      const rows = await sql<{ key: string; data: unknown }>(
        "SELECT key, data FROM pulumi_state WHERE key LIKE '%/.pulumi/stacks/tenants/%.json'",
      );
      const byStack: Record<string, string[]> = {};
      for (const r of rows) {
        // The backend keeps each file as {"data": "<base64 of its bytes>"}.
        const checkpoint = JSON.parse(postgresFileText(r.data)) as {
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
