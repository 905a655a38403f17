#!/usr/bin/env node
/**
 * mgmt-fleet: converge thousands of tenants with workers on many machines, through a job queue in
 * the PostgreSQL that holds their state.
 *
 *   mgmt-fleet submit <tenants.json> [--wait]    one converge job per tenant (a queued one is replaced)
 *   mgmt-fleet worker [--concurrency 4] [--work-dir DIR]
 *                                                run jobs until SIGTERM/SIGINT (running updates are cancelled gracefully)
 *   mgmt-fleet status [--json]                   per tenant: state, action, attempts, duration, error
 *   mgmt-fleet drift <tenants.json>              a read-only check per tenant; waits, then lists what drifted (exit 3 if any)
 *   mgmt-fleet destroy <tenants.json> [--wait]   one destroy job per tenant
 *
 * Every command takes --database URL (else MGMT_FLEET_DATABASE_URL, else a postgres://
 * PULUMI_BACKEND_URL). Workers need the service (MGMT_* variables) and PULUMI_CONFIG_PASSPHRASE.
 */
import "./needsPulumiMgmt";
import { setMaxListeners } from "node:events";
import path from "node:path";
import { serviceFromEnv } from "./serviceEnv";
import { settled, status, submit, type Progress, type TenantStatus } from "./queue";
import { shutdown } from "./shutdown";
import { readTenants, type Tenant } from "./tenant";
import { exitStatus, parseCommandLine, UsageError } from "pulumi-mgmt/internal/cli/commandLine";
import { fleetCommandLine, fleetUsage, FLEET_COMMANDS, type FleetCommand, type OptionName } from "./usage";
import { failureLine } from "./failureLine";
import { isPostgres } from "./adapters/pulumiBackend";

function database(value: string | undefined): string {
  const url =
    value ??
    process.env.MGMT_FLEET_DATABASE_URL ??
    (process.env.PULUMI_BACKEND_URL?.startsWith("postgres") ? process.env.PULUMI_BACKEND_URL : undefined);
  if (!url)
    throw new UsageError(
      "--database: the PostgreSQL URL of the fleet (postgres://...), or set MGMT_FLEET_DATABASE_URL",
    );
  if (!isPostgres(url))
    throw new UsageError(`--database: must be a postgres:// URL, got "${url.replace(/\/\/[^@/]*@/, "//***@")}"`);
  return url;
}

/** Each value, or one usage error that says every thrown message (settings a command cannot run without). */
function both<A, B>(a: () => A, b: () => B): [A, B] {
  const errors: unknown[] = [];
  const run = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (err) {
      errors.push(err);
      return undefined;
    }
  };
  const values = [run(a), run(b)] as [A, B];
  if (errors.length > 0)
    throw new UsageError(errors.map((e) => (e instanceof Error ? e.message : String(e))).join("; and "));
  return values;
}

function tenantsArg(file: string | undefined): Tenant[] {
  if (!file) throw new UsageError("the tenant list: give the path of a JSON file (an array of tenants)");
  try {
    return readTenants(file);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/** Waits, saying what it waits for, until the tenants' jobs are settled; their rows of `status`. */
async function settledRows(db: string, tenants: Tenant[]): Promise<TenantStatus[]> {
  // Ctrl-C ends the wait, not the jobs: say so, rather than leave the user guessing.
  const stopWaiting = (sig: NodeJS.Signals) => {
    console.log(`mgmt-fleet: stopped waiting (${sig}); the jobs go on without it: mgmt-fleet status shows them`);
    process.exit(sig === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", stopWaiting).once("SIGTERM", stopWaiting);
  try {
    await settled(
      db,
      tenants.map((t) => t.id),
      1000,
      undefined,
      say,
    );
  } finally {
    process.off("SIGINT", stopWaiting).off("SIGTERM", stopWaiting);
  }
  return (await status(db)).filter((r) => tenants.some((t) => t.id === r.tenant));
}

/** A wait's progress, one line per change (and a reminder while nothing moves): never 20 s of silence. */
function say(p: Progress): void {
  const why =
    p.retrying > 0
      ? ` (${p.retrying} waiting to be tried again after a failure: mgmt-fleet status shows why)`
      : p.running === 0 && p.queued > 0
        ? " (no job has started yet: is a worker running? mgmt-fleet worker)"
        : "";
  console.log(`${p.done} of ${p.total} tenants done, ${p.running} running, ${p.queued} queued${why}`);
}

const jobs = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

function table(rows: TenantStatus[]): string {
  const cells = [
    ["tenant", "state", "action", "attempts", "duration", "error"],
    ...rows.map((r) => [
      r.tenant,
      r.state,
      r.action ?? "-",
      String(r.attempts),
      r.seconds !== undefined ? `${r.seconds.toFixed(1)}s` : "-",
      // A job not ended yet: its error is its previous attempt's, the reason for the retry.
      r.note ??
        (r.error && (r.state === "running" || r.state === "queued") ? `previous attempt: ${r.error}` : r.error) ??
        "",
    ]),
  ];
  const widths = cells[0].map((_, c) => Math.max(...cells.map((r) => r[c].length)));
  return cells
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c]))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const unknownCommand = (command: string | undefined) =>
  new UsageError(
    `the command: must be one of ${FLEET_COMMANDS.join(", ")}, got ${command === undefined ? "nothing" : `"${command}"`}`,
  );

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    console.log(fleetUsage());
    return 0;
  }
  if (!(FLEET_COMMANDS as string[]).includes(first)) throw unknownCommand(first);
  const command = first as FleetCommand;
  // Each command parses only the options its --help lists.
  const { options, maxPositionals } = fleetCommandLine(command);
  const { values: parsed, positionals } = parseCommandLine(
    { args: rest, allowPositionals: true, options },
    { help: `mgmt-fleet ${command} --help`, maxPositionals },
  );
  const values = parsed as Partial<Record<OptionName | "help", string | boolean>>;
  const text = (name: OptionName): string | undefined => {
    const v = values[name];
    return typeof v === "string" ? v : undefined;
  };
  if (values.help) {
    console.log(fleetUsage(command));
    return 0;
  }
  // Read by the commands that queue jobs, the ones whose options have it (usage.ts, default 5).
  const maxAttempts = (): number => {
    const n = Number(text("max-attempts"));
    if (!Number.isInteger(n) || n < 1 || n > 25)
      throw new UsageError(`--max-attempts: must be a whole number from 1 to 25, got "${text("max-attempts")}"`);
    return n;
  };

  switch (command) {
    case "submit":
    case "destroy": {
      const attempts = maxAttempts();
      const tenants = tenantsArg(positionals[0]);
      const db = database(text("database"));
      await submit(tenants, {
        database: db,
        action: command === "destroy" ? "destroy" : "converge",
        maxAttempts: attempts,
      });
      console.log(`submitted ${jobs(tenants.length, command === "destroy" ? "destroy job" : "converge job")}`);
      if (!values.wait) return 0;
      const rows = await settledRows(db, tenants);
      console.log(table(rows));
      return rows.some((r) => r.state === "failed") ? 1 : 0;
    }
    case "drift": {
      const attempts = maxAttempts();
      const tenants = tenantsArg(positionals[0]);
      const db = database(text("database"));
      await submit(tenants, { database: db, action: "drift", maxAttempts: attempts });
      console.log(`submitted ${jobs(tenants.length, "drift check")}`);
      const rows = await settledRows(db, tenants);
      const drifted = rows.filter((r) => r.state === "drifted");
      for (const r of drifted)
        for (const d of r.drift ?? [])
          console.log(
            `${r.tenant}: ${d.resource} ${d.deleted ? "is gone from the service (deleted outside the stack)" : `drifted${d.fields.length ? ` (${d.fields.join(", ")})` : ""}`}`,
          );
      for (const r of rows.filter((x) => x.state === "failed"))
        console.log(`${r.tenant}: the check failed: ${r.error}`);
      console.log(`${drifted.length} of ${tenants.length} tenants drifted`);
      return drifted.length > 0 ? 3 : rows.some((r) => r.state === "failed") ? 1 : 0;
    }
    case "status": {
      const rows = await status(database(text("database")));
      if (values.json) console.log(JSON.stringify(rows, null, 2));
      // An empty table would leave a user who named the wrong database guessing.
      else if (rows.length === 0)
        console.log("no tenant in this fleet database yet: mgmt-fleet submit <tenants.json> adds them");
      else console.log(table(rows));
      return 0;
    }
    case "worker": {
      const concurrency = Number(text("concurrency"));
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
        throw new UsageError(`--concurrency: must be a whole number from 1 to 64, got "${text("concurrency")}"`);
      const lockWait = Number(text("lock-wait"));
      if (!Number.isInteger(lockWait) || lockWait < 0 || lockWait > 86_400)
        throw new UsageError(
          `--lock-wait: must be a whole number of seconds from 0 to 86400, got "${text("lock-wait")}"`,
        );
      // Both said at once: a first try often lacks the database and the service alike.
      const [mgmt, db] = both(
        () => serviceFromEnv(process.env, { passphrase: true }),
        () => database(text("database")),
      );
      // A relative folder would be resolved again by Pulumi against each tenant's project folder.
      const workRoot = path.resolve(text("work-dir")!);
      // The first signal stops taking jobs and cancels the running updates gracefully, waiting
      // for as long as the database needs to record them; a second one (or the service manager's
      // stop timeout) ends this worker's Pulumi processes and the worker at once.
      const stop = shutdown({ log: (line) => console.log(`mgmt-fleet: ${line}`) });
      // Loaded here only: the other commands never need the Pulumi SDK that runs take (worker.ts).
      const { startWorker } = await import("./worker");
      // A job whose outcome was lost stays locked by this process until it is gone: it stops, so
      // that another worker takes the job, and exits 1 for its service manager to start it again.
      let lostOutcome = false;
      const worker = await startWorker({
        database: db,
        concurrency,
        workRoot,
        mgmt,
        abandon: stop.abandon,
        lockWaitMs: lockWait * 1000,
        onLostOutcome: (line) => {
          console.log(`mgmt-fleet: ${line}`);
          if (lostOutcome) return;
          lostOutcome = true;
          stop.request("a job's outcome was lost");
          void worker.stop();
        },
      });
      setMaxListeners(concurrency * 4 + 10);
      // process.on, not once: execa (under the Automation API) re-raises a signal that finds no
      // listener but its own, which would kill this process in the middle of the shutdown.
      for (const sig of ["SIGINT", "SIGTERM"] as const) {
        process.on(sig, () => {
          const first = !stop.cancel.aborted;
          stop.request(sig);
          if (first) void worker.stop();
        });
      }
      // Its runs' processes are dead by then; what it leaves (open runs, locked jobs) other workers
      // recover as a dead worker's. Waiting for graphile-worker's own end would need the database.
      stop.abandon.addEventListener("abort", () => setTimeout(() => process.exit(1), 200));
      console.log(`mgmt-fleet worker: ${concurrency} at a time, work in ${workRoot}`);
      await worker.done;
      console.log("mgmt-fleet worker: stopped");
      return stop.abandon.aborted || lostOutcome ? 1 : 0; // stopped for good, or a job left locked: others recover them
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`mgmt-fleet: ${failureLine(err)}`);
    process.exit(exitStatus(err));
  },
);
