/**
 * A fleet worker process's job runner (queue.ts says how the fleet's queue works): it runs each
 * job's tenant through its fence, and frees the jobs of dead workers. Apart from queue.ts, so that
 * the commands that only submit, wait for and read jobs (`mgmt-fleet submit`, `status`, `drift`,
 * `destroy`) never load the Pulumi SDK that a run needs: a second of CPU at every start.
 */
import { EventEmitter } from "node:events";
import {
  makeWorkerUtils,
  run,
  type Job,
  type JobHelpers,
  type Runner,
  type Task,
  type WorkerEvents,
} from "graphile-worker";
import { boundPulumiCommand } from "pulumi-mgmt/internal/automation/boundCli";
import { checkCliHasBackend, type MgmtConfig } from "pulumi-mgmt/internal/automation/stack";
import { jobsLockedLongerThan } from "./adapters/graphileWorker";
import { ACTIONS } from "./converge";
import { convergeFenced } from "./fencedRun";
import { FenceBusyError } from "./fence";
import { ensureFleetSchema, fleetClient } from "./fleetDatabase";
import { LostOutcomes, queuePool, untilDatabaseAnswers } from "./jobOutcome";
import { isDead, Liveness } from "./liveness";
import { quiet, TASK, type Payload } from "./queue";
import { checkTenants, TENANT_PROJECT } from "./tenant";
import { UserError } from "pulumi-mgmt/internal/userError";

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
  /**
   * A job's outcome was lost (jobOutcome.ts): its job stays locked by this process's pool until
   * this process is gone. Default: the line is logged. `mgmt-fleet worker` stops and exits 1.
   */
  onLostOutcome?: (line: string) => void;
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
  // The stacks' state is in the fleet's database: a CLI without that backend fails here, not per job.
  checkCliHasBackend(o.database, await boundPulumiCommand());
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
  const running = new Set<string>();
  // graphile-worker records each job's outcome through this pool; a job hands it back once the
  // pool answers (jobOutcome.ts).
  const pool = queuePool(o.database, o.concurrency + 4);
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
    const handedBack = run.finally(() => untilDatabaseAnswers(pool, o.abandon));
    active.add(handedBack);
    running.add(helpers.job.id);
    return handedBack.finally(() => {
      active.delete(handedBack);
      running.delete(helpers.job.id);
    });
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
    pgPool: pool,
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
  // One look at a time: confirming a worker dead takes longer than the interval (liveness.ts, isDead).
  let reaping: Promise<void> | undefined;
  const lost = new LostOutcomes();
  const reaper = setInterval(() => {
    reaping ??= reap(o, liveness, utils.forceUnlockWorkers, log, { lost, running })
      .catch(() => undefined)
      .finally(() => (reaping = undefined));
  }, o.reapEveryMs ?? 5000);
  const done = runner.promise.finally(async () => {
    clearInterval(reaper);
    await Promise.resolve(utils.release()).catch(() => undefined);
    await pool.end().catch(() => undefined);
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

/**
 * Unlocks the jobs of workers whose process is gone, so that the living finish them; and says
 * which jobs of this process's own pools lost their outcome (jobOutcome.ts).
 */
async function reap(
  o: WorkerOptions,
  liveness: Liveness,
  forceUnlock: (ids: string[]) => Promise<void>,
  log: (line: string) => void,
  own: { lost: LostOutcomes; running: Set<string> },
): Promise<void> {
  const client = fleetClient(o.database);
  await client.connect();
  try {
    const locked = await jobsLockedLongerThan(client, (o.reapAfterMs ?? 10_000) / 1000);
    const mine = locked.filter((j) => liveness.has(j.locked_by));
    for (const id of own.lost.look(
      mine.map((j) => j.id),
      own.running,
    )) {
      const job = mine.find((j) => j.id === id);
      (o.onLostOutcome ?? log)(
        `job ${id}${job?.key ? ` (${job.key})` : ""} ended, but its outcome never reached the database: it stays locked by this worker until this process is gone`,
      );
    }
    const byPool = new Map<string, (string | null)[]>();
    for (const j of locked)
      if (!liveness.has(j.locked_by)) byPool.set(j.locked_by, [...(byPool.get(j.locked_by) ?? []), j.key]);
    const dead: string[] = [];
    for (const [pool, keys] of byPool) {
      if (await isDead(client, pool)) {
        dead.push(pool);
        log(`worker ${pool} is gone: its jobs (${keys.join(", ")}) go back to the queue`);
      }
    }
    if (dead.length > 0) await forceUnlock(dead);
  } finally {
    await client.end().catch(() => undefined);
  }
}
