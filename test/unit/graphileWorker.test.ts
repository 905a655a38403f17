/**
 * What the fleet reads of graphile-worker (fleet/adapters/graphileWorker.ts), held to the
 * installed release, the only one fleet/package.json's range takes: its jobs run on a real
 * PostgreSQL (scripts/postgres.sh) are read through the adapter as they are queued, running, and
 * failed; its log lines for what the fleet says itself are recognised. And a job that ends while
 * the server is down hands its outcome back once the server answers (fleet/jobOutcome.ts): it is
 * completed, and the worker runs on.
 */
import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Logger, makeWorkerUtils, run, type Runner, type WorkerEvents } from "graphile-worker";
import { Client } from "pg";
import { hasJobQueue, jobsLockedLongerThan, jobsOfTask, saidByTheFleet } from "../../fleet/adapters/graphileWorker";
import { queuePool, untilDatabaseAnswers } from "../../fleet/jobOutcome";
import { startPostgres, type TestPostgres } from "../support/postgres";

const TASK = "adapter_test";
let pg: TestPostgres;

beforeAll(() => {
  pg = startPostgres();
});
afterAll(() => pg?.stop());

/** The adapter's reads, on a connection of their own. */
async function read<T>(f: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: pg.url });
  await client.connect();
  try {
    return await f(client);
  } finally {
    await client.end();
  }
}

async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100)))
    if (await check().catch(() => false)) return;
  throw new Error(`timed out waiting for ${what}`);
}

/** Every error line graphile-worker logs, first line only. */
function errorLines(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    logger: new Logger(() => (level, message) => void (level === "error" && lines.push(message.split("\n")[0]))),
  };
}

/** A runner on a pool of its own, as the fleet's worker runs one: each job hands its outcome back once the pool answers. */
async function runner(
  name: string,
  task: () => Promise<void>,
  logger: Logger,
): Promise<{ runner: Runner; pool: Promise<string> }> {
  const events = new EventEmitter() as WorkerEvents;
  const pool = new Promise<string>((resolve) => events.once("pool:create", ({ workerPool }) => resolve(workerPool.id)));
  const pgPool = queuePool(pg.url, 5);
  const r = await run({
    pgPool,
    concurrency: 1,
    taskList: { [name]: () => task().finally(() => untilDatabaseAnswers(pgPool)) },
    noHandleSignals: true,
    logger,
    events,
    pollInterval: 200,
    crontab: "",
  });
  void r.promise.finally(() => pgPool.end());
  return { runner: r, pool };
}

test("the installed graphile-worker is the release fleet/package.json takes", () => {
  const installed = JSON.parse(
    readFileSync(path.join(path.dirname(require.resolve("graphile-worker")), "../package.json"), "utf8"),
  ) as { version: string };
  const range = (
    JSON.parse(readFileSync(path.join(__dirname, "../../fleet/package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    }
  ).dependencies["graphile-worker"];
  // ^0.17.3 takes 0.17.3 and later 0.17 releases only; 0.17.3 is the last one published.
  expect(range).toBe("^0.17.3");
  expect(installed.version).toMatch(/^0\.17\.([3-9]|\d\d+)$/);
});

test("a job is read as it is queued, running and failed; the worker's line of a failed job is one the fleet says itself", async () => {
  expect(await read(hasJobQueue)).toBe(false);
  const utils = await makeWorkerUtils({ connectionString: pg.url });
  await utils.migrate();
  expect(await read(hasJobQueue)).toBe(true);
  await utils.addJob(
    TASK,
    { n: 1 },
    { jobKey: "tenant:a1", queueName: "tenant:a1", maxAttempts: 1, flags: ["converge"] },
  );
  expect(await read((c) => jobsOfTask(c, TASK))).toEqual([
    {
      key: "tenant:a1",
      queue_name: "tenant:a1",
      attempts: 0,
      max_attempts: 1,
      last_error: null,
      locked_by: null,
      flags: { converge: true },
    },
  ]);

  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const log = errorLines();
  const { runner: r, pool } = await runner(
    TASK,
    async () => {
      started();
      await held;
      throw new Error("the service answered 503");
    },
    log.logger,
  );
  try {
    await running;
    const poolId = await pool;
    expect(await read((c) => jobsOfTask(c, TASK))).toEqual([
      expect.objectContaining({ key: "tenant:a1", attempts: 1, locked_by: poolId }),
    ]);
    await until("the job locked for a second", async () => (await read((c) => jobsLockedLongerThan(c, 1))).length > 0);
    expect(await read((c) => jobsLockedLongerThan(c, 1))).toEqual([
      { id: expect.stringMatching(/^\d+$/), key: "tenant:a1", locked_by: poolId },
    ]);
    expect(await read((c) => jobsLockedLongerThan(c, 3600))).toEqual([]);

    release();
    await until("the job failed for good", async () => (await read((c) => jobsOfTask(c, TASK)))[0]?.locked_by === null);
    expect(await read((c) => jobsOfTask(c, TASK))).toEqual([
      expect.objectContaining({ attempts: 1, max_attempts: 1, locked_by: null }),
    ]);
    expect((await read((c) => jobsOfTask(c, TASK)))[0].last_error).toMatch(/^the service answered 503/);
    await until("the failure's line", async () => log.lines.length > 0);
    expect(log.lines).toEqual([expect.stringMatching(/^Failed task \d+ /)]);
    expect(log.lines.every(saidByTheFleet)).toBe(true);
  } finally {
    await r.stop();
    await utils.release();
  }
}, 60_000);

test("a job that ends while PostgreSQL is down is completed once it is back, and the worker runs on; the lost-connection lines are the fleet's to say", async () => {
  const task = "adapter_test_restart";
  const utils = await makeWorkerUtils({ connectionString: pg.url });
  await utils.migrate();
  await utils.release();
  const add = async (key: string) => {
    const u = await makeWorkerUtils({ connectionString: pg.url });
    await u.addJob(task, {}, { jobKey: key, queueName: key, maxAttempts: 3 });
    await u.release();
  };
  const done = async () => (await read((c) => jobsOfTask(c, task))).length === 0;
  await add("tenant:b1");
  const log = errorLines();
  let resumed: Promise<void> | undefined;
  const ran: string[] = [];
  const { runner: r } = await runner(
    task,
    async () => {
      ran.push("job");
      if (resumed) return;
      // The server goes away as the first job ends: its completion finds no server, then (3 s on) one again.
      pg.halt();
      resumed = new Promise((resolve) => setTimeout(() => (pg.resume(), resolve()), 3000));
    },
    log.logger,
  );
  try {
    await until("the server halted", async () => resumed !== undefined);
    await resumed;
    await until("the job completed", done, 60_000);
    // The worker lives on: it runs the next job.
    await add("tenant:b2");
    await until("the next job completed", done, 60_000);
    expect(ran).toEqual(["job", "job"]);
    const lostConnection = log.lines.filter((l) =>
      /ECONNREFUSED|terminating connection|Connection terminated|connection error|starting up|shutting down/.test(l),
    );
    expect(lostConnection.filter((l) => !saidByTheFleet(l))).toEqual([]);
  } finally {
    await r.stop();
  }
}, 120_000);
