/**
 * Tenants per minute of the tenant-provisioning example (examples/tenants) at concurrency 1, 4
 * and 8, with state on file:// and on postgres:// (a throw-away cluster from
 * scripts/postgres.sh), median of 3 runs each with min and max, and the driver's peak memory.
 * Each run creates N tenants from nothing (a fresh backend, the emulator reset); the runs of one
 * configuration are interleaved with the others so machine noise spreads over all of them.
 * Writes the "tenants" section of docs/benchmarks.md.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startEmulator } from "../emulator";
import { PACKAGE_ROOT } from "../provider/automation";
import { writeSection } from "./docSection";
import { useOwnPulumiHome } from "./ownHome";
import { startPostgresCluster } from "../scripts/postgresCluster";

const N = Number(process.env.BENCH_TENANTS ?? 12);
const CONCURRENCY = [1, 4, 8];
const REPEATS = 3;
const EXAMPLE = path.join(PACKAGE_ROOT, "examples/tenants");

interface Sample {
  seconds: number;
  peakMiB: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  useOwnPulumiHome();
  const work = mkdtempSync(path.join(os.tmpdir(), "bench-tenants-"));
  // The driver compiled to JavaScript: its memory is then the driver's, not a TypeScript compiler's.
  const build = path.join(EXAMPLE, ".build");
  execFileSync(
    process.execPath,
    [
      path.join(PACKAGE_ROOT, "node_modules/typescript/bin/tsc"),
      "-p",
      path.join(EXAMPLE, "tsconfig.json"),
      "--outDir",
      build,
    ],
    { stdio: "inherit" },
  );
  const pg = startPostgresCluster("bench-tenants-pg-");
  const emu = await startEmulator();
  const alice = emu.users[0];
  const account = alice.accounts.find((a) => a.region === "eu-central-1" && a.type === "free")!;
  const tenantsFile = path.join(work, "tenants.json");
  const ids = Array.from({ length: N }, (_, i) => `b${String(i + 1).padStart(2, "0")}`);
  writeFileSync(
    tenantsFile,
    JSON.stringify(ids.map((id) => ({ id, flowControlKey: `key-${id}`, pin: { parallelism: 2, rate: 10 } }))),
  );

  const samples = new Map<string, Sample[]>();
  let db = 0;
  try {
    for (let r = 0; r < REPEATS; r++) {
      for (const backend of ["file", "postgres"] as const) {
        for (const c of CONCURRENCY) {
          emu.emulator.reset();
          const data = emu.emulator.data.accounts.find((a) => a.record.id === account.id)!;
          for (const id of ids) data.keys[`key-${id}`] = { waitListSize: 0, paused: false, rateResets: 0 };
          const url =
            backend === "file" ? `file://${mkdtempSync(path.join(work, "state-"))}` : pg.newDatabase(`bench${++db}`);
          process.stdout.write(`run ${r + 1}/${REPEATS}: ${N} tenants, concurrency ${c}, ${backend}... `);
          const started = Date.now();
          const out = await driver(
            build,
            [
              "--tenants",
              tenantsFile,
              "--concurrency",
              String(c),
              "--backend",
              url,
              "--work-dir",
              mkdtempSync(path.join(work, "stacks-")),
              "--stats",
            ],
            {
              MGMT_BASE_URL: emu.baseUrl,
              MGMT_USERNAME: alice.username,
              MGMT_PASSWORD: alice.password,
              MGMT_MESSAGING_URL: emu.messagingUrl,
              MGMT_REGIONAL_MESSAGING_URL: emu.regionalMessagingUrl,
              MGMT_MESSAGING_TOKEN: account.token,
              PULUMI_CONFIG_PASSPHRASE: "bench-only",
            },
          );
          const seconds = (Date.now() - started) / 1000;
          if (!out.includes(`${N} of ${N} tenants converged`) || emu.emulator.data.indexes.length !== N)
            throw new Error(`run failed:\n${out}`);
          const peakMiB = Number(/driver peak memory: (\d+) MiB/.exec(out)?.[1]);
          process.stdout.write(
            `${seconds.toFixed(1)} s, ${((N / seconds) * 60).toFixed(1)} tenants/min, driver ${peakMiB} MiB\n`,
          );
          const key = `${backend} ${c}`;
          samples.set(key, [...(samples.get(key) ?? []), { seconds, peakMiB }]);
        }
      }
    }
  } finally {
    await emu.close();
    pg.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(build, { recursive: true, force: true });
  }

  const rate = (s: Sample) => (N / s.seconds) * 60;
  const rows = [...samples.entries()].map(([key, xs]) => {
    const [backend, c] = key.split(" ");
    const rates = xs.map(rate);
    return `| ${backend === "file" ? "`file://`" : "`postgres://`"} | ${c} | ${median(rates).toFixed(1)} | ${Math.min(...rates).toFixed(1)} – ${Math.max(...rates).toFixed(1)} | ${median(xs.map((x) => x.seconds)).toFixed(1)} s | ${Math.max(...xs.map((x) => x.peakMiB))} MiB |`;
  });
  const text = [
    "## Tenant provisioning (`npm run bench:tenants`)",
    "",
    `The tenants example (\`examples/tenants\`, compiled) creating ${N} tenants from nothing (a search index and a pinned flow control key each, one stack per tenant) against the emulator, median of ${REPEATS} interleaved runs per row. Measured on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, Node ${process.version}. Driver memory is the driver process's own peak RSS (the Pulumi CLI and plugin processes it starts are not included).`,
    "",
    "| backend | concurrency | tenants/min (median) | min – max | time for all | driver peak memory |",
    "|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
  writeSection("tenants", text);
  process.stdout.write(`\n${text}\n\nwritten to docs/benchmarks.md\n`);
}

function driver(build: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(build, "index.js"), ...args], {
      cwd: EXAMPLE,
      env: { ...process.env, ...env },
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", () => resolve(out));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
