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
import { EventEmitter } from "node:events";
import {
  makeWorkerUtils,
  run,
  Logger,
  type Job,
  type JobHelpers,
  type Runner,
  type Task,
  type WorkerEvents,
} from "graphile-worker";
import type { MgmtConfig } from "../automation/stack";
import { ACTIONS, type Action, type Drift } from "./converge";
import { convergeFenced } from "./fencedRun";
import { FenceBusyError, FLEET_SCHEMA, ensureFleetSchema, fleetClient, isDead } from "./fence";
import { Liveness } from "./liveness";
import "./pgRetries";
import { checkTenants, TENANT_PROJECT, type Tenant } from "./tenant";
import { UserError } from "../userError";

export const TASK = "pulumi_mgmt_tenant";

interface Payload {
  tenant: Tenant;
  action: Action;
}

/**
 * What graphile-worker says that the fleet says itself: a job's failure (the worker's line for the
 * job has the reason) and a lost connection to the database (liveness.ts says it is away, and
 * when it is back). A PostgreSQL restart made ten such lines of one event.
 */
const SAID_BY_THE_FLEET = [
  /^Failed task \d+ /,
  /^(PostgreSQL (idle|active) client generated error|Error with notify listener|Error occurred (attempting to UNLISTEN|fetching jobs|during fetch))\b.*(terminating connection|connection error|Connection terminated|the database system is (starting up|shutting down|in recovery)|ECONNREFUSED|ECONNRESET)/,
];

/** graphile-worker's own log lines, only when asked (MGMT_FLEET_DEBUG): the fleet says what matters itself. */
export const quiet = new Logger(() => (level, message) => {
  if (process.env.MGMT_FLEET_DEBUG) process.stderr.write(`[graphile-worker] ${level}: ${message}\n`);
  // Its errors carry stacks: the first line says it all.
  else if (level === "error") {
    const first = message.split("\n")[0];
    if (!SAID_BY_THE_FLEET.some((said) => said.test(first))) process.stderr.write(`[graphile-worker] ${first}\n`);
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

export interface WorkerOptions {
  database: string;
  concurrency: number;
  /** Each stack gets <workRoot>/<tenant> on this machine (Pulumi keeps the selected stack in a file per folder). */
  workRoot: string;
  mgmt: MgmtConfig;
  passphrase?: string;
  /** How often this process looks for jobs of dead workers. Default 5 s. */
  reapEveryMs?: number;
  /** How long a job must have been locked before its worker can be judged dead. Default 10 s. */
  reapAfterMs?: number;
  log?: (line: string) => void;
  /** This process is ending for good (a second SIGTERM): runs stop waiting to record their end (shutdown.ts). */
  abandon?: AbortSignal;
  /** How long a run waits for a Pulumi lock that is not a dead run's (a person's `pulumi up`) before failing. Default 300 s. */
  lockWaitMs?: number;
}

export interface FleetWorker {
  /** Stops taking jobs; running updates are cancelled gracefully (state written, lock released); resolves when done. */
  stop(): Promise<void>;
  /** Settles when the worker has stopped. */
  done: Promise<void>;
}

/** Starts a worker process's job runner. */
export async function startWorker(o: WorkerOptions): Promise<FleetWorker> {
  const log = o.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  await ensureFleetSchema(o.database);
  const liveness = new Liveness(o.database, log);
  await liveness.start();
  const events = new EventEmitter() as WorkerEvents;
  // graphile-worker locks a job under its worker pool's id (one pool per `run`), not under the id
  // of the worker inside the pool that runs it: the pool's id is what must prove this process alive.
  events.on("pool:create", ({ workerPool }) => void liveness.add(workerPool.id));

  // Stopping cancels this process's running updates and waits for their jobs to be recorded
  // before graphile-worker shuts down: a job still active during its shutdown can be left locked.
  const stopping = new AbortController();
  const active = new Set<Promise<void>>();
  // Errors a job's line has already said: graphile-worker's own line of a failed job is not shown,
  // so every other failure gets the worker's line here.
  const said = new WeakSet<object>();
  const task: Task = (raw, helpers) => {
    const run = (
      stopping.signal.aborted
        ? Promise.reject(new UserError("this worker is stopping: the job goes back to the queue"))
        : runJob(raw, helpers)
    ).catch((err: unknown) => {
      if (!(err instanceof Object && said.has(err)))
        log(`${jobName(raw, helpers.job.id)}: ${(err instanceof Error ? err.message : String(err)).split("\n")[0]}`);
      throw err;
    });
    active.add(run);
    return run.finally(() => active.delete(run));
  };
  const runJob = async (raw: unknown, helpers: JobHelpers): Promise<void> => {
    const { tenant, action } = parsePayload(raw);
    const worker = helpers.job.locked_by ?? "unknown";
    const signal = AbortSignal.any([stopping.signal, ...(helpers.abortSignal ? [helpers.abortSignal] : [])]);
    // Nobody may judge this run's worker dead: its lock is taken before the run starts.
    await liveness.held(worker, signal);
    if (signal.aborted) throw new UserError("this worker is stopping: the job goes back to the queue");
    const started = (unfinished: boolean) => {
      if (unfinished)
        log(
          `${tenant.id}: the last run did not finish (its worker died, or it was cancelled): breaking its lock if it is provably that run's, and importing its pending creates`,
        );
      log(`${tenant.id}: ${action} (attempt ${helpers.job.attempts} of ${helpers.job.max_attempts})`);
    };
    const run = {
      database: o.database,
      worker,
      jobId: helpers.job.id,
      attempt: helpers.job.attempts,
      workRoot: o.workRoot,
      mgmt: o.mgmt,
      retries: 0,
      action,
      signal,
      passphrase: o.passphrase,
      abandon: o.abandon,
      lockWaitMs: o.lockWaitMs,
    };
    const lost = (why: string) => log(`${tenant.id}: ${why}: cancelling its update`);
    const notice = (line: string) => log(`${tenant.id}: ${line}`);
    const result = await convergeFenced(tenant, run, { started, lost, notice }).catch((err) => {
      if (err instanceof FenceBusyError) {
        log(`${tenant.id}: ${err.message}; retrying later`);
        said.add(err);
      }
      throw err;
    });
    log(
      `${tenant.id}: ${result.error?.startsWith(result.status) ? result.error : `${result.status}${result.error ? `: ${result.error}` : ""}`} in ${result.seconds.toFixed(1)}s`,
    );
    // Back to the queue (with backoff) only what another attempt can fix.
    if ((result.status === "failed" && result.transient) || result.status === "cancelled") {
      const again = new UserError(result.error ?? result.status);
      said.add(again);
      throw again;
    }
  };

  const runner: Runner = await run({
    connectionString: o.database,
    concurrency: o.concurrency,
    taskList: { [TASK]: task },
    noHandleSignals: true,
    logger: quiet,
    events,
    pollInterval: 1000,
    crontab: "",
    // A stopping worker fetches no job: graphile-worker counts an attempt as it hands one out, so
    // each job handed back would lose one (two per job in 5 s, seen), and a long stop all of them.
    // Every job carries its action as a flag (submit); the task still hands back one fetched just before.
    forbiddenFlags: () => (stopping.signal.aborted ? [...ACTIONS] : null),
  });
  const utils = await makeWorkerUtils({ connectionString: o.database, logger: quiet });
  // Jobs queued by a version that set no flags get their action's: a stopping worker skips jobs by
  // it (forbiddenFlags above), and would otherwise take and hand back theirs, spending attempts.
  await utils.withPgClient((client) =>
    client.query(
      `UPDATE graphile_worker._private_jobs AS j SET flags = jsonb_build_object(j.payload->>'action', true)
         FROM graphile_worker._private_tasks AS t
        WHERE j.task_id = t.id AND t.identifier = $1 AND j.flags IS NULL AND j.payload->>'action' = ANY($2)`,
      [TASK, [...ACTIONS]],
    ),
  );
  // One look at a time: confirming a worker dead takes longer than the interval (fence.ts, isDead).
  let reaping: Promise<void> | undefined;
  const reaper = setInterval(() => {
    reaping ??= reap(o, liveness, utils.forceUnlockWorkers, log)
      .catch(() => undefined)
      .finally(() => (reaping = undefined));
  }, o.reapEveryMs ?? 5000);
  const done = runner.promise.finally(async () => {
    clearInterval(reaper);
    await Promise.resolve(utils.release()).catch(() => undefined);
    await liveness.stop();
  });
  return {
    async stop() {
      stopping.abort(new UserError("this worker is stopping"));
      await Promise.allSettled([...active]);
      await runner.stop();
      await done.catch(() => undefined);
    },
    done,
  };
}

/** A job in the worker's log: its tenant, as the job's lines name it, even when its payload is bad. */
function jobName(raw: unknown, jobId: string): string {
  const id = (raw as { tenant?: { id?: unknown } } | null)?.tenant?.id;
  return typeof id === "string" ? id : `job ${jobId}`;
}

function parsePayload(raw: unknown): Payload {
  const p = raw as Partial<Payload>;
  const action = ACTIONS.find((a) => a === p?.action);
  if (!p || !action)
    throw new UserError(`job payload: action must be one of ${ACTIONS.join(", ")}, got ${JSON.stringify(p?.action)}`);
  return { tenant: checkTenants([p.tenant], "job payload")[0], action };
}

/** Unlocks the jobs of workers whose process is gone, so that the living finish them. */
async function reap(
  o: WorkerOptions,
  liveness: Liveness,
  forceUnlock: (ids: string[]) => Promise<void>,
  log: (line: string) => void,
): Promise<void> {
  const client = fleetClient(o.database);
  await client.connect();
  try {
    const { rows } = await client.query<{ locked_by: string; keys: string[] }>(
      `SELECT locked_by, array_agg(key) AS keys FROM graphile_worker.jobs WHERE locked_by IS NOT NULL AND locked_at < now() - make_interval(secs => $1) GROUP BY locked_by`,
      [(o.reapAfterMs ?? 10_000) / 1000],
    );
    const dead: string[] = [];
    for (const { locked_by, keys } of rows) {
      if (liveness.has(locked_by)) continue;
      if (await isDead(client, locked_by)) {
        dead.push(locked_by);
        log(`worker ${locked_by} is gone: its jobs (${keys.join(", ")}) go back to the queue`);
      }
    }
    if (dead.length > 0) await forceUnlock(dead);
  } finally {
    await client.end().catch(() => undefined);
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
  await ensureFleetSchema(database);
  const client = fleetClient(database);
  await client.connect();
  try {
    const hasQueue = (await client.query("SELECT to_regclass('graphile_worker.jobs') IS NOT NULL AS ok")).rows[0]
      .ok as boolean;
    const jobs = hasQueue
      ? (
          await client.query<
            Pick<Job, "key" | "attempts" | "max_attempts" | "last_error" | "locked_by"> & {
              queue_name: string;
              flags: Record<string, true> | null;
            }
          >(
            `SELECT key, queue_name, attempts, max_attempts, last_error, locked_by, flags FROM graphile_worker.jobs WHERE task_identifier = $1`,
            [TASK],
          )
        ).rows
      : [];
    const runs = (
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
      // The view has no payload: the tenant is in the queue's name, a drift check in the key.
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
        action: Object.keys(j.flags ?? {})[0] ?? (j.key?.startsWith("drift:") ? "drift" : undefined),
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
