/**
 * `npm run bench`: what pulumi-mgmt adds on top of the Pulumi engine, measured against the
 * emulator with 50 ms of added latency per request. Writes docs/benchmarks.md.
 *
 * - `up` of N search indexes against `up` of N dynamic resources that only sleep 50 ms, in the
 *   same engine and the same provider host: the ratio is what our provider costs;
 * - API calls per operation, counted in the emulator's request log;
 * - bytes of state per resource and how much of it is the serialized provider;
 * - TCP connections the client opened per `up`.
 */
import { writeFileSync, mkdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { startEmulator, type RunningEmulator } from "../emulator";
import { closeAllPools } from "../provider/api/client";
import { PACKAGE_ROOT, mgmtStack, pulumiCommand, type MgmtConfig, type MgmtStack } from "../provider/automation";
import { MessagingBudget, SearchIndex } from "../provider";

const LATENCY_MS = 50;
const SIZES = (process.env.BENCH_SIZES ?? "10,50,200").split(",").map(Number);

/** The baseline: a dynamic resource that does nothing but wait as long as one request would. */
const sleepProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    await new Promise((r) => setTimeout(r, 50));
    return { id: `sleep-${inputs.n}`, outs: inputs };
  },
  async delete() {
    await new Promise((r) => setTimeout(r, 50));
  },
};
class Sleep extends pulumi.dynamic.Resource {
  constructor(name: string, n: number) {
    super(sleepProvider, name, { n }, {}, "bench", "Sleep");
  }
}

interface Row {
  n: number;
  indexUpMs: number;
  sleepUpMs: number;
  /** The same two ups with PULUMI_SKIP_CHECKPOINTS=true (largest N only). */
  noCheckpoints?: { indexUpMs: number; sleepUpMs: number };
  connectionsPerUp: number;
  noopPreviewCalls: number;
  noopUpCalls: number;
  refreshIndexCalls: number;
  refreshBudgetCalls: number;
  stateBytesPerIndex: number;
  providerBytesPerIndex: number;
}

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const start = process.hrtime.bigint();
  const result = await f();
  return [result, Number(process.hrtime.bigint() - start) / 1e6];
}

async function stackOf(name: string, mgmt: MgmtConfig, program: () => void, envVars?: Record<string, string>): Promise<MgmtStack> {
  return mgmtStack({ stackName: name, projectName: "pulumi-mgmt-bench", mgmt, envVars, program: async () => void program() });
}

async function dispose(s: MgmtStack): Promise<void> {
  await s.stack.destroy();
  await s.stack.workspace.removeStack(s.stack.name);
  rmSync(s.backendDir, { recursive: true, force: true });
}

/**
 * The engine writes the whole state after every step, so state size costs time as N grows; the
 * same ups without intermediate checkpoints show how much.
 */
async function withoutCheckpoints(emu: RunningEmulator, mgmt: MgmtConfig, n: number): Promise<{ indexUpMs: number; sleepUpMs: number }> {
  emu.emulator.reset();
  emu.emulator.controls.latencyMs = LATENCY_MS;
  const env = { PULUMI_SKIP_CHECKPOINTS: "true" };
  const indexes = await stackOf(`nockpt-indexes-${n}`, mgmt, () => {
    for (let i = 0; i < n; i++) new SearchIndex(`idx-${i}`, { name: `nockpt-${n}-${i}`, region: "eu-west-1", type: "free" });
  }, env);
  const [, indexUpMs] = await timed(() => indexes.stack.up());
  const sleeps = await stackOf(`nockpt-sleep-${n}`, mgmt, () => {
    for (let i = 0; i < n; i++) new Sleep(`sleep-${i}`, i);
  }, env);
  const [, sleepUpMs] = await timed(() => sleeps.stack.up());
  emu.emulator.controls.latencyMs = 0;
  await dispose(indexes);
  await dispose(sleeps);
  return { indexUpMs, sleepUpMs };
}

async function measure(emu: RunningEmulator, mgmt: MgmtConfig, n: number): Promise<Row> {
  emu.emulator.reset();
  emu.emulator.controls.latencyMs = LATENCY_MS;

  const indexes = await stackOf(`indexes-${n}`, mgmt, () => {
    for (let i = 0; i < n; i++) new SearchIndex(`idx-${i}`, { name: `bench-${n}-${i}`, region: "eu-west-1", type: "free" });
  });
  emu.resetLog();
  const [, indexUpMs] = await timed(() => indexes.stack.up());
  const connectionsPerUp = emu.emulator.controls.connections;

  emu.resetLog();
  await indexes.stack.preview();
  const noopPreviewCalls = emu.requests().length;
  emu.resetLog();
  await indexes.stack.up();
  const noopUpCalls = emu.requests().length;
  emu.resetLog();
  await indexes.stack.refresh();
  const refreshIndexCalls = emu.requests().length;

  const resources = ((await indexes.stack.exportStack()).deployment.resources ?? []).filter((r: { type: string }) => r.type.endsWith(":SearchIndex"));
  const stateBytesPerIndex = Math.round(resources.reduce((sum: number, r: unknown) => sum + JSON.stringify(r).length, 0) / resources.length);
  const providerBytes = (r: { inputs?: { __provider?: string }; outputs?: { __provider?: string } }) =>
    JSON.stringify(r.inputs?.__provider ?? "").length + JSON.stringify(r.outputs?.__provider ?? "").length;
  const providerBytesPerIndex = Math.round(resources.reduce((sum: number, r: never) => sum + providerBytes(r), 0) / resources.length);

  const sleeps = await stackOf(`sleep-${n}`, mgmt, () => {
    for (let i = 0; i < n; i++) new Sleep(`sleep-${i}`, i);
  });
  const [, sleepUpMs] = await timed(() => sleeps.stack.up());

  const accounts = Array.from({ length: n }, () => emu.emulator.addAccount("alice", "eu-central-1").record.id);
  const budgets = await stackOf(`budgets-${n}`, mgmt, () => {
    accounts.forEach((id, i) => new MessagingBudget(`budget-${i}`, { accountId: id, budget: 100 }));
  });
  await budgets.stack.up();
  emu.resetLog();
  await budgets.stack.refresh();
  const refreshBudgetCalls = emu.requests().length;

  emu.emulator.controls.latencyMs = 0;
  for (const s of [indexes, sleeps, budgets]) await dispose(s);
  return { n, indexUpMs, sleepUpMs, connectionsPerUp, noopPreviewCalls, noopUpCalls, refreshIndexCalls, refreshBudgetCalls, stateBytesPerIndex, providerBytesPerIndex };
}

function report(rows: Row[], pulumiVersion: string): string {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  const lines = [
    "# Benchmarks",
    "",
    `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB,`,
    `${os.type()} ${os.release()}, Node.js ${process.version}, Pulumi CLI ${pulumiVersion}. Emulator on loopback with ${LATENCY_MS} ms added to every request.`,
    "Times vary from machine to machine; compare the ratios, not the seconds.",
    "",
    "## `up` of N search indexes against N dynamic resources that only sleep 50 ms",
    "",
    "Same engine, same provider host; the ratio is what pulumi-mgmt adds (one create request with 50 ms latency per index, the API client, validation).",
    "",
    "| N | SearchIndex up | sleep-only up | ratio |",
    "|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.n} | ${(r.indexUpMs / 1000).toFixed(1)} s | ${(r.sleepUpMs / 1000).toFixed(1)} s | ${(r.indexUpMs / r.sleepUpMs).toFixed(2)} |`),
    ...rows
      .filter((r) => r.noCheckpoints)
      .map((r) => {
        const c = r.noCheckpoints!;
        return `| ${r.n}, PULUMI_SKIP_CHECKPOINTS=true | ${(c.indexUpMs / 1000).toFixed(1)} s | ${(c.sleepUpMs / 1000).toFixed(1)} s | ${(c.indexUpMs / c.sleepUpMs).toFixed(2)} |`;
      }),
    "",
    "The engine writes the whole state after every step; a search index's state (see below) is larger than a sleep resource's, so that",
    "share grows with N. The row without intermediate checkpoints measures how much of the ratio it is.",
    "",
    "## API calls per operation",
    "",
    "| N | no-op preview | no-op up | refresh of N indexes | refresh of N budgets |",
    "|---:|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.n} | ${r.noopPreviewCalls} | ${r.noopUpCalls} | ${r.refreshIndexCalls} | ${r.refreshBudgetCalls} |`),
    "",
    "## State and connections",
    "",
    "| N | bytes of state per index | of which the serialized provider | TCP connections opened by one `up` |",
    "|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.n} | ${r.stateBytesPerIndex} | ${r.providerBytesPerIndex} | ${r.connectionsPerUp} |`),
    "",
  ];
  return lines.join("\n");
}

async function main(): Promise<void> {
  const emu = await startEmulator();
  const alice = emu.users[0];
  const mgmt: MgmtConfig = { baseUrl: emu.baseUrl, messagingUrl: emu.messagingUrl, regionalMessagingUrl: emu.regionalMessagingUrl, username: alice.username, password: alice.password };
  const rows: Row[] = [];
  try {
    for (const n of SIZES) {
      process.stdout.write(`measuring N=${n}...\n`);
      rows.push(await measure(emu, mgmt, n));
    }
    const largest = rows[rows.length - 1];
    process.stdout.write(`measuring N=${largest.n} without intermediate checkpoints...\n`);
    largest.noCheckpoints = await withoutCheckpoints(emu, mgmt, largest.n);
  } finally {
    await closeAllPools();
    await emu.close();
  }
  const version = (await pulumiCommand()).version?.toString() ?? "unknown";
  const text = report(rows, version);
  process.stdout.write(`\n${text}\n`);
  mkdirSync(path.join(PACKAGE_ROOT, "docs"), { recursive: true });
  writeFileSync(path.join(PACKAGE_ROOT, "docs/benchmarks.md"), text);
  process.stdout.write("written to docs/benchmarks.md\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
