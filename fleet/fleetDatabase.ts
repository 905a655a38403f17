/**
 * The fleet's own PostgreSQL: its clients, and its own tables (the run records, schema
 * `pulumi_mgmt_fleet`), beside graphile-worker's jobs and, on a postgres:// backend, Pulumi's state,
 * which only those programs write (adapters/).
 */
import { Client, type ClientConfig } from "pg";

export const FLEET_SCHEMA = "pulumi_mgmt_fleet";

/**
 * A client of the fleet's database. A server that drops a connection (a restart) makes its client
 * emit "error" even while idle, which unheard would crash the whole worker: its queries reject
 * instead, and that is what the callers handle.
 */
export function fleetClient(
  connectionString: string,
  options: Pick<ClientConfig, "keepAlive" | "connectionTimeoutMillis" | "query_timeout"> = {},
): Client {
  const client = new Client({ connectionString, ...options });
  client.on("error", () => undefined);
  return client;
}

const ensured = new Map<string, Promise<void>>();

/** The fleet's own tables, made once per database and process; concurrent first runs queue on a transaction lock. */
export function ensureFleetSchema(connectionString: string): Promise<void> {
  let made = ensured.get(connectionString);
  if (!made) {
    made = createFleetSchema(connectionString);
    made.catch(() => ensured.delete(connectionString));
    ensured.set(connectionString, made);
  }
  return made;
}

async function createFleetSchema(connectionString: string): Promise<void> {
  const client = fleetClient(connectionString);
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('pulumi-mgmt-fleet:schema', 0))");
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${FLEET_SCHEMA}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${FLEET_SCHEMA}.runs (
      id bigserial PRIMARY KEY,
      stack text NOT NULL,
      action text NOT NULL,
      job_id text,
      attempt int NOT NULL DEFAULT 1,
      worker text NOT NULL,
      started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      ended_at timestamptz,
      result text,
      error text,
      changes jsonb,
      drift jsonb,
      fence_lost boolean NOT NULL DEFAULT false
    )`);
    await client.query(`CREATE INDEX IF NOT EXISTS runs_stack ON ${FLEET_SCHEMA}.runs (stack, id)`);
    // Who a run's Pulumi lock would name (stackLock.ts): its host, and the pids of its CLIs as
    // each starts (automation/boundCli.ts). And what a status shows while the run waits.
    await client.query(
      `ALTER TABLE ${FLEET_SCHEMA}.runs ADD COLUMN IF NOT EXISTS host text, ADD COLUMN IF NOT EXISTS cli_pids int[] NOT NULL DEFAULT '{}', ADD COLUMN IF NOT EXISTS note text`,
    );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}
