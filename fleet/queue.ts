/**
 * Fleets: tenants converged by any number of worker processes on any number of machines, through
 * graphile-worker's job queue in the PostgreSQL that already holds the stacks' state.
 *
 * - `submit` enqueues one job per tenant under the job key `tenant:<id>` in "replace" mode: a
 *   tenant still queued gets its newer desired state instead of a second job. Jobs of one tenant
 *   share a named queue, so graphile-worker never runs two of them at once.
 * - A worker runs jobs with graphile-worker (LISTEN/NOTIFY, exponential backoff, a bounded number
 *   of attempts). Each job holds the stack's fence (fence.ts) for its whole run.
 * - graphile-worker frees the jobs of a dead worker only after four hours. Each worker process
 *   therefore holds an advisory lock per worker pool id (what graphile-worker locks jobs under)
 *   on its own connection (liveness.ts); every few seconds each process looks for jobs locked by
 *   pools whose lock stays free (their process is gone) and unlocks them (`forceUnlockWorkers`),
 *   so another worker finishes them within half a minute.
 * - A run that fails for good (the engine's definite refusal) completes its job and is recorded
 *   as failed with the engine's reason; only transient failures go back to the queue.
 */
import { makeWorkerUtils, Logger } from "graphile-worker";
import { hasJobQueue, jobsOfTask, saidByTheFleet } from "./adapters/graphileWorker";
import type { Action, Drift } from "./converge";
import { FLEET_SCHEMA, ensureFleetSchema, fleetClient } from "./fleetDatabase";
import { TENANT_PROJECT, type Tenant } from "./tenant";

export const TASK = "pulumi_mgmt_tenant";

export interface Payload {
  tenant: Tenant;
  action: Action;
}

/** graphile-worker's own log lines, only when asked (MGMT_FLEET_DEBUG): the fleet says what matters itself. */
export const quiet = new Logger(() => (level, message) => {
  if (process.env.MGMT_FLEET_DEBUG) process.stderr.write(`[graphile-worker] ${level}: ${message}\n`);
  // Its errors carry stacks: the first line says it all.
  else if (level === "error") {
    const first = message.split("\n")[0];
    if (!saidByTheFleet(first)) process.stderr.write(`[graphile-worker] ${first}\n`);
  }
});

export interface SubmitOptions {
  /** The PostgreSQL database: the job queue, the run records, and (as postgres://) the stacks' state. */
  database: string;
  action?: Action;
  /** Attempts per job before it is marked failed for good (transient failures only). Default 5. */
  maxAttempts?: number;
}

/** Enqueues one job per tenant; a job of the same tenant and kind still queued is replaced. Returns the job ids. */
export async function submit(tenants: Tenant[], o: SubmitOptions): Promise<string[]> {
  await ensureFleetSchema(o.database);
  const utils = await makeWorkerUtils({ connectionString: o.database, logger: quiet });
  try {
    await utils.migrate();
    const action = o.action ?? "converge";
    const ids: string[] = [];
    for (const tenant of tenants) {
      const payload: Payload = { tenant, action };
      // A drift check is its own kind of job: it must not replace a converge still queued.
      const jobKey = `${action === "drift" ? "drift" : "tenant"}:${tenant.id}`;
      const job = await utils.addJob(TASK, payload, {
        jobKey,
        jobKeyMode: "replace",
        queueName: `tenant:${tenant.id}`,
        maxAttempts: o.maxAttempts ?? 5,
        // What `status` shows of a job still queued: the queue's view of it has no payload.
        flags: [action],
      });
      ids.push(job.id);
    }
    return ids;
  } finally {
    await utils.release();
  }
}

export interface TenantStatus {
  tenant: string;
  /** queued, running, or the last run's result (created, updated, unchanged, destroyed, drifted, failed, interrupted, cancelled). */
  state: string;
  action?: string;
  attempts: number;
  seconds?: number;
  error?: string;
  drift?: Drift[];
  worker?: string;
  /** What a running run waits for (a Pulumi lock that is not a dead run's). */
  note?: string;
}

/** Per tenant: a job still queued or running, else the last run's result, with its action, attempts, duration and error. */
export async function status(database: string): Promise<TenantStatus[]> {
  // A read: it makes nothing, so a status of the wrong database leaves that database as it was.
  const client = fleetClient(database);
  await client.connect();
  try {
    const jobs = (await hasJobQueue(client)) ? await jobsOfTask(client, TASK) : [];
    const hasRuns = (
      await client.query<{ ok: boolean }>(`SELECT to_regclass('${FLEET_SCHEMA}.runs') IS NOT NULL AS ok`)
    ).rows[0].ok;
    const runs = !hasRuns
      ? []
      : (
          await client.query<{
            stack: string;
            action: string;
            result: string | null;
            error: string | null;
            seconds: number | null;
            attempt: number;
            worker: string;
            drift: TenantStatus["drift"] | null;
            note: string | null;
          }>(
            `SELECT DISTINCT ON (stack) stack, action, result, error, extract(epoch FROM ended_at - started_at)::float AS seconds, attempt, worker, drift, note FROM ${FLEET_SCHEMA}.runs WHERE stack LIKE $1 ORDER BY stack, id DESC`,
            [`${TENANT_PROJECT}/%`],
          )
        ).rows;
    const byTenant = new Map<string, TenantStatus>();
    for (const r of runs) {
      const tenant = r.stack.slice(TENANT_PROJECT.length + 1);
      byTenant.set(tenant, {
        tenant,
        state: r.result ?? "running",
        action: r.action,
        attempts: r.attempt,
        ...(r.seconds !== null ? { seconds: r.seconds } : {}),
        ...(r.error ? { error: r.error } : {}),
        ...(r.drift ? { drift: r.drift } : {}),
        ...(r.note && r.result === null ? { note: r.note } : {}),
        worker: r.worker,
      });
    }
    // A tenant's jobs, the one that says most first: running, then queued, then failed for good.
    const rank = (j: (typeof jobs)[number]) => (j.locked_by ? 0 : j.attempts < j.max_attempts ? 1 : 2);
    const shown = new Set<string>();
    for (const j of [...jobs].sort((a, b) => rank(a) - rank(b))) {
      // The view has no payload: the tenant is in the queue's name, the action in the job's flags.
      const tenant = j.queue_name.slice("tenant:".length);
      // A job replaced by a newer submit while it ran loses its key and its remaining attempts
      // (graphile-worker's "replace" mode): once it is not running, it is nobody's state.
      if (j.key === null && !j.locked_by) continue;
      if (shown.has(tenant)) continue;
      shown.add(tenant);
      const failedForGood = j.attempts >= j.max_attempts && !j.locked_by;
      const last = byTenant.get(tenant);
      // A job still to end shows its own: the error of its last attempt (why it waits for a retry),
      // and of its running run what it waits for. Not the previous job's result, error or duration.
      const running = last?.state === "running" && j.locked_by ? last : undefined;
      byTenant.set(tenant, {
        ...(failedForGood ? last : undefined),
        tenant,
        action: Object.keys(j.flags ?? {})[0],
        state: failedForGood ? "failed" : j.locked_by ? "running" : "queued",
        attempts: j.attempts,
        ...(j.last_error ? { error: j.last_error.split("\n")[0] } : {}),
        ...(running?.note ? { note: running.note } : {}),
        ...(running?.worker ? { worker: running.worker } : {}),
      });
    }
    return [...byTenant.values()].sort((a, b) => a.tenant.localeCompare(b.tenant));
  } finally {
    await client.end();
  }
}

/** How far a wait for jobs has come. */
export interface Progress {
  total: number;
  done: number;
  running: number;
  queued: number;
  /** Of the queued, those whose job ran and failed for a transient reason: they wait for their retry. */
  retrying: number;
}

/**
 * Resolves when no job of these tenants is queued or running (a job failed for good counts as
 * done). `progress` hears each change of the counts, and the same counts again every `remindMs`
 * while nothing changes, so that a wait is never silent.
 */
export async function settled(
  database: string,
  tenants: string[],
  pollMs = 1000,
  signal?: AbortSignal,
  progress?: (p: Progress) => void,
  remindMs = 15_000,
): Promise<void> {
  const wanted = new Set(tenants);
  let last = "";
  let said = 0;
  for (;;) {
    const mine = (await status(database)).filter((s) => wanted.has(s.tenant));
    const running = mine.filter((s) => s.state === "running").length;
    const queued = mine.filter((s) => s.state === "queued").length + (wanted.size - mine.length);
    const retrying = mine.filter((s) => s.state === "queued" && s.attempts > 0).length;
    const p = { total: wanted.size, done: wanted.size - running - queued, running, queued, retrying };
    const key = JSON.stringify(p);
    if (progress && (key !== last || Date.now() - said >= remindMs)) {
      progress(p);
      last = key;
      said = Date.now();
    }
    if (running + queued === 0 || signal?.aborted) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
