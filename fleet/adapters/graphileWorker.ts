/**
 * What the fleet reads of graphile-worker beyond its API, and nothing else reads it: the rows of
 * its `jobs` view (a job's key, queue, attempts, last error, flags, and who locks it since when)
 * and the text of its log lines that say what the fleet says itself. Its tables are written by
 * graphile-worker alone, through its API (addJob, forceUnlockWorkers, the `pgPool` it runs on).
 *
 * test/unit/graphileWorker.test.ts holds the installed graphile-worker (the only release that
 * fleet/package.json's range takes) to this: it runs jobs with it on a real PostgreSQL, reads them
 * here, and stops the server under it.
 */
import type { Client } from "pg";

/** A job as the fleet's status reads it. */
export interface JobRow {
  key: string | null;
  queue_name: string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  /** The worker pool holding it while it runs. */
  locked_by: string | null;
  flags: Record<string, true> | null;
}

/** Whether graphile-worker has made its tables in this database (a status reads, it never makes them). */
export async function hasJobQueue(client: Client): Promise<boolean> {
  return (await client.query<{ ok: boolean }>("SELECT to_regclass('graphile_worker.jobs') IS NOT NULL AS ok")).rows[0]
    .ok;
}

/** The jobs of one task, queued, running or failed for good (a completed job is gone). */
export async function jobsOfTask(client: Client, task: string): Promise<JobRow[]> {
  return (
    await client.query<JobRow>(
      "SELECT key, queue_name, attempts, max_attempts, last_error, locked_by, flags FROM graphile_worker.jobs WHERE task_identifier = $1",
      [task],
    )
  ).rows;
}

/** The jobs locked for longer than `seconds`: their ids and keys, and the worker pool holding each. */
export async function jobsLockedLongerThan(
  client: Client,
  seconds: number,
): Promise<{ id: string; key: string | null; locked_by: string }[]> {
  return (
    await client.query<{ id: string; key: string | null; locked_by: string }>(
      "SELECT id::text, key, locked_by FROM graphile_worker.jobs WHERE locked_by IS NOT NULL AND locked_at < now() - make_interval(secs => $1)",
      [seconds],
    )
  ).rows;
}

/**
 * graphile-worker's error lines for what the fleet says itself: a job's failure (the worker's line
 * for the job has the reason) and a lost connection to the database (liveness.ts says it is away,
 * and when it is back). A PostgreSQL restart made ten such lines of one event.
 */
const SAID_BY_THE_FLEET = [
  /^Failed task \d+ /,
  /^(PostgreSQL (idle|active) client generated error|Error with notify listener|Error occurred (attempting to UNLISTEN|fetching jobs|during fetch))\b.*(terminating connection|connection error|Connection terminated|the database system is (starting up|shutting down|in recovery)|ECONNREFUSED|ECONNRESET)/,
];

/** Whether an error line of graphile-worker's log (its first line) says what the fleet says itself. */
export const saidByTheFleet = (firstLine: string) => SAID_BY_THE_FLEET.some((said) => said.test(firstLine));
