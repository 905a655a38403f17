// Tenant provisioning with the Automation API: one stack per customer (a search index and a
// pinned flow control policy), converged with bounded concurrency, live progress per tenant,
// and a summary table. Re-running it with nothing changed makes no write call.
//
//   ts-node index.ts [--tenants tenants.json] [--concurrency 4] [--backend URL] [--work-dir DIR]
//                    [--retries 2] [--destroy] [--recover] [--stats] [--db-wait 180]
//
// The service: MGMT_BASE_URL, MGMT_USERNAME, MGMT_PASSWORD, MGMT_MESSAGING_URL,
// MGMT_REGIONAL_MESSAGING_URL, MGMT_MESSAGING_TOKEN (for a local try, `npx mgmt-emulator --env`
// prints them as shell exports). State: --backend, else PULUMI_BACKEND_URL, else ./.pulumi-state;
// its secrets need PULUMI_CONFIG_PASSPHRASE (or _FILE).
//
// With state in PostgreSQL (--backend postgres://...) each tenant's run holds its stack's fence,
// as a fleet worker's does (`mgmt-fleet`): a second driver or a worker never updates the same
// stack at once, and after a driver was killed the next run recovers its stacks by itself (the
// dead driver's Pulumi processes still running get --takeover-wait seconds to finish, then are
// ended). If the database goes away, the driver says so at once and waits for it --db-wait
// seconds, then stops. With a file:// backend, recover a killed run's stacks with --recover.
//
// SIGINT / SIGTERM cancel the running updates gracefully; if they have not stopped within 10 s,
// or at a second signal, the driver ends its Pulumi processes and exits: the next run recovers.
import { setMaxListeners } from "node:events";
import path from "node:path";
import { parseArgs } from "node:util";
import { Listr } from "listr2";
import {
  converge,
  readTenants,
  serviceFromEnv,
  shutdown,
  startFencedDriver,
  type TenantResult,
} from "pulumi-mgmt-fleet";

function usage(message: string): never {
  console.error(`tenants: ${message}`);
  process.exit(2);
}

/** tenant | status | index | duration, aligned. */
function table(results: TenantResult[]): string {
  const rows = [
    ["tenant", "status", "index", "duration"],
    ...results.map((r) => [
      r.tenant,
      r.status + (r.attempts > 1 ? ` (${r.attempts} attempts)` : ""),
      r.index ?? "-",
      `${r.seconds.toFixed(1)}s`,
    ]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]))
      .join("  ")
      .trimEnd();
  return [line(rows[0]), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tenants: { type: "string", default: path.join(__dirname, "tenants.json") },
      concurrency: { type: "string", default: "4" },
      backend: { type: "string" },
      "work-dir": { type: "string", default: path.join(process.cwd(), ".tenants") },
      retries: { type: "string", default: "2" },
      destroy: { type: "boolean", default: false },
      recover: { type: "boolean", default: false },
      stats: { type: "boolean", default: false },
      "db-wait": { type: "string", default: "180" },
      "takeover-wait": { type: "string", default: "60" },
    },
  });
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    usage(`--concurrency: must be a whole number from 1 to 64, got "${values.concurrency}"`);
  const retries = Number(values.retries);
  if (!Number.isInteger(retries) || retries < 0 || retries > 10)
    usage(`--retries: must be a whole number from 0 to 10, got "${values.retries}"`);
  const seconds = (flag: "db-wait" | "takeover-wait") => {
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < 1 || n > 86_400)
      usage(`--${flag}: must be a whole number of seconds from 1 to 86400, got "${values[flag]}"`);
    return n * 1000;
  };
  const dbWaitMs = seconds("db-wait");
  const takeoverWaitMs = seconds("takeover-wait");
  let tenants;
  try {
    tenants = readTenants(values.tenants!);
  } catch (err) {
    usage((err as Error).message);
  }
  let mgmt;
  try {
    mgmt = serviceFromEnv(process.env, { passphrase: true });
  } catch (err) {
    usage((err as Error).message);
  }
  const backendUrl =
    values.backend ?? process.env.PULUMI_BACKEND_URL ?? `file://${path.join(process.cwd(), ".pulumi-state")}`;

  // SIGINT / SIGTERM: every running update is cancelled gracefully (in-flight operations finish,
  // the state is written, the lock released); tenants not started yet are not started. If that
  // takes more than 10 s (the state database away, say), or at a second signal, the driver stops
  // for good: its Pulumi processes are ended, and the next run recovers what they left.
  const stop = shutdown({ graceMs: 10_000, log: (line) => console.error(`tenants: ${line}`) });
  setMaxListeners(tenants.length + 10, stop.cancel); // each running update listens to it
  // process.on, not once: execa (under the Automation API) re-raises a signal that finds no
  // listener but its own, which would kill this process in the middle of the shutdown.
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => stop.request(sig));

  const fenced = backendUrl.startsWith("postgres")
    ? await startFencedDriver(backendUrl, {
        dbWaitMs,
        shutdown: stop,
        log: (line) => console.error(`tenants: ${line}`),
      })
    : undefined;
  const results: TenantResult[] = [];
  const verb = values.destroy ? "destroying" : "converging";
  const list = new Listr(
    tenants.map((t) => ({
      title: t.id,
      task: async (_ctx: unknown, task: { title: string; output: string }) => {
        if (stop.cancel.aborted) {
          results.push({
            tenant: t.id,
            status: "cancelled",
            seconds: 0,
            attempts: 0,
            error: `not started: ${stop.abandon.aborted ? (stop.abandon.reason as Error).message : "the driver was stopped"}`,
          });
          task.title = `${t.id}: not started`;
          return;
        }
        task.title = `${t.id}: ${verb}`;
        const run = {
          workRoot: values["work-dir"]!,
          mgmt,
          retries,
          action: values.destroy ? ("destroy" as const) : ("converge" as const),
          recover: values.recover!,
          signal: stop.cancel,
        };
        // In a terminal each tenant's line shows its engine's latest step; in a log, only the outcomes.
        const progress = (line: string) => {
          if (process.stdout.isTTY) task.output = line;
        };
        const r = fenced
          ? await fenced.converge(t, { ...run, takeoverWaitMs }, progress)
          : await converge(t, { ...run, backendUrl }, progress);
        results.push(r);
        task.title = `${t.id}: ${r.status}${r.index ? ` (${r.index})` : ""} in ${r.seconds.toFixed(1)}s`;
        if (r.status === "failed" || r.status === "cancelled") throw new Error(`${t.id}: ${r.error}`);
      },
    })),
    // The default renderer redraws each tenant's line in a terminal; elsewhere (CI, a pipe, a
    // log file) listr2 falls back to plain lines.
    {
      concurrent: concurrency,
      exitOnError: false,
      collectErrors: "minimal",
      rendererOptions: { collapseErrors: false },
      fallbackRendererOptions: { timestamp: undefined },
    },
  );
  console.log(
    `${verb} ${tenants.length} tenants, ${concurrency} at a time, state in ${backendUrl.replace(/\/\/[^@/]*@/, "//***@")}`,
  );
  await list.run().catch(() => undefined);
  await fenced?.close();

  results.sort((a, b) => tenants.findIndex((t) => t.id === a.tenant) - tenants.findIndex((t) => t.id === b.tenant));
  console.log(`\n${table(results)}`);
  const failed = results.filter((r) => r.status === "failed" || r.status === "cancelled");
  for (const f of failed) console.log(`${f.tenant}: ${f.error}`);
  console.log(
    `${results.length - failed.length} of ${tenants.length} tenants ${values.destroy ? "destroyed" : "converged"}${failed.length ? `, ${failed.length} failed` : ""}`,
  );
  // The driver's own peak memory (not the Pulumi processes it starts): what sizing a provisioning service needs.
  if (values.stats) console.log(`driver peak memory: ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
  process.exitCode = failed.length > 0 ? 1 : 0;
}

main().catch((err) => {
  console.error(`tenants: ${(err as Error).message}`);
  process.exit(1);
});
