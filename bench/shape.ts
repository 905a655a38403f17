/**
 * `npm run bench:shape`: where the time of an `up` of N search indexes goes, beyond the sleep-only
 * baseline of `npm run bench`. Variants, interleaved run by run (median of REPS, default 3):
 * - `sleep`: the baseline (one input, outputs = inputs);
 * - `index`: SearchIndex against the emulator (50 ms per request);
 * - `shaped`: a sleep-only resource with the shape SearchIndex had before it stopped storing its
 *   details: 18 output placeholders, 21 outputs returned, two secret outputs, but no HTTP,
 *   no validation;
 * - `nosecrets` / `noplaceholders`: `shaped` without the secrets / without the placeholders.
 * `shaped` against `index` shows what storing every field of the record cost in the engine and
 * the SDK, apart from anything pulumi-mgmt's provider does. Prints the medians and ratios.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { startEmulatorProcess } from "./emulatorProcess";
import { closeAllPools } from "../provider/api/client";
import { mgmtStack, type MgmtConfig } from "../provider/automation";
import { SearchIndex } from "../provider";
import { writeSection } from "./docSection";
import { useOwnPulumiHome } from "./ownHome";

const N = Number(process.env.N ?? "200");
const REPS = Number(process.env.REPS ?? "3");
const VARIANTS = (process.env.VARIANTS ?? "sleep,index,shaped,nosecrets,noplaceholders").split(",");

const sleepProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    await new Promise((r) => setTimeout(r, 50));
    return { id: `sleep-${inputs.n}`, outs: inputs };
  },
};
class Sleep extends pulumi.dynamic.Resource {
  constructor(name: string, n: number) {
    super(sleepProvider, name, { n }, {}, "bench", "Sleep");
  }
}
const shapedProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    await new Promise((r) => setTimeout(r, 50));
    const outs = {
      name: inputs.name,
      region: inputs.region,
      type: inputs.type,
      deployedRegion: "eu-west-1",
      customerId: "alice@example.com",
      endpoint: `https://${inputs.name}-abcdef12-eu1-vector.example.io`,
      integrationEmail: "",
      token: "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB",
      readOnlyToken: "QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJC",
      maxVectorCount: 10000,
      maxMonthlyReranks: 0,
      maxDailyUpdates: 10000,
      maxDailyQueries: 10000,
      maxMonthlyBandwidth: 1000000000,
      maxWritesPerSecond: 1000,
      maxQueryPerSecond: 1000,
      maxReadsPerRequest: 1000,
      maxWritesPerRequest: 1000,
      creationTime: 1700000000,
      inputEnrichmentEnabled: false,
      managedBy: "alice@http://127.0.0.1:12345",
    };
    return { id: `shaped-${inputs.name}`, outs };
  },
};
const OUTS = [
  "deployedRegion",
  "customerId",
  "endpoint",
  "integrationEmail",
  "token",
  "readOnlyToken",
  "maxVectorCount",
  "maxMonthlyReranks",
  "maxDailyUpdates",
  "maxDailyQueries",
  "maxMonthlyBandwidth",
  "maxWritesPerSecond",
  "maxQueryPerSecond",
  "maxReadsPerRequest",
  "maxWritesPerRequest",
  "creationTime",
  "inputEnrichmentEnabled",
  "managedBy",
];
class Shaped extends pulumi.dynamic.Resource {
  constructor(name: string, n: number) {
    super(
      shapedProvider,
      name,
      {
        ...Object.fromEntries(OUTS.map((k) => [k, undefined])),
        name: `s-${n}`,
        region: "eu-west-1",
        type: "free",
        adopt: undefined,
        autoName: undefined,
      },
      { additionalSecretOutputs: ["token", "readOnlyToken"] },
      "bench",
      "Shaped",
    );
  }
}

class ShapedNoSecrets extends pulumi.dynamic.Resource {
  constructor(name: string, n: number) {
    super(
      shapedProvider,
      name,
      {
        ...Object.fromEntries(OUTS.map((k) => [k, undefined])),
        name: `s-${n}`,
        region: "eu-west-1",
        type: "free",
        adopt: undefined,
        autoName: undefined,
      },
      {},
      "bench",
      "Shaped",
    );
  }
}
class ShapedNoPlaceholders extends pulumi.dynamic.Resource {
  constructor(name: string, n: number) {
    super(
      shapedProvider,
      name,
      { name: `s-${n}`, region: "eu-west-1", type: "free" },
      { additionalSecretOutputs: ["token", "readOnlyToken"] },
      "bench",
      "Shaped",
    );
  }
}
const LABELS: Record<string, string> = {
  sleep: "sleep-only (baseline)",
  index: "SearchIndex (emulator, 50 ms per request)",
  shaped: "sleep-only with the shape SearchIndex had when it stored every field",
  nosecrets: "… without the two secret outputs",
  noplaceholders: "… without the 18 output placeholders",
};
const programs: Record<string, (tag: string) => () => void> = {
  sleep: () => () => {
    for (let i = 0; i < N; i++) new Sleep(`r-${i}`, i);
  },
  index: (tag) => () => {
    for (let i = 0; i < N; i++) new SearchIndex(`r-${i}`, { name: `${tag}-${i}`, region: "eu-west-1", type: "free" });
  },
  shaped: () => () => {
    for (let i = 0; i < N; i++) new Shaped(`r-${i}`, i);
  },
  nosecrets: () => () => {
    for (let i = 0; i < N; i++) new ShapedNoSecrets(`r-${i}`, i);
  },
  noplaceholders: () => () => {
    for (let i = 0; i < N; i++) new ShapedNoPlaceholders(`r-${i}`, i);
  },
};

async function main(): Promise<void> {
  useOwnPulumiHome();
  const emu = await startEmulatorProcess();
  const times: Record<string, number[]> = {};
  for (let rep = 0; rep < REPS; rep++) {
    const order = rep % 2 ? [...VARIANTS].reverse() : VARIANTS;
    for (const v of order) {
      const alice = await emu.reset(50);
      const mgmt: MgmtConfig = {
        baseUrl: emu.baseUrl,
        messagingUrl: emu.messagingUrl,
        regionalMessagingUrl: emu.regionalMessagingUrl,
        username: alice.username,
        password: alice.password,
      };
      const backendDir = mkdtempSync(path.join(os.tmpdir(), "pulumi-mgmt-shape-"));
      const s = await mgmtStack({
        stackName: `${v}-${rep}`,
        projectName: "pulumi-mgmt-shape",
        mgmt,
        backendDir,
        passphrase: "p",
        offline: true,
        program: async () => void programs[v](`p${rep}`)(),
      });
      const start = Date.now();
      await s.up();
      (times[v] ??= []).push(Date.now() - start);
      await s.destroy();
      await s.stack.workspace.removeStack(s.stack.name);
      rmSync(backendDir, { recursive: true, force: true });
      // The folder the SDK made for the inline program (automation-*), which it never removes.
      rmSync(s.stack.workspace.workDir, { recursive: true, force: true });
      process.stdout.write(`${v} rep ${rep}: ${times[v].at(-1)} ms\n`);
    }
  }
  await closeAllPools();
  await emu.close();
  if (!times.sleep) return; // no baseline to compare with (bench:profile runs one variant at a time)
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const med = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)];
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const ratios = (v: string) => sorted(times[v].map((t, i) => t / times.sleep[i]));
  const rows = VARIANTS.map((v) => {
    const r = ratios(v);
    return `| ${LABELS[v] ?? v} | ${sec(med(times[v]))} (${sec(sorted(times[v])[0])}–${sec(sorted(times[v]).at(-1)!)}) | **${med(r).toFixed(2)}** (${r[0].toFixed(2)}–${r.at(-1)!.toFixed(2)}) |`;
  });
  const text = [
    `## Where the time of an \`up\` of ${N} goes (\`npm run bench:shape\`)`,
    "",
    `Measured on ${new Date().toISOString().slice(0, 10)}, median of ${REPS} interleaved runs (min–max), ratios against the sleep-only run beside each.`,
    "A sleep-only resource given the shape SearchIndex had when it stored every field of the record (18 output placeholders,",
    "21 outputs, two of them secret) and no HTTP or validation shows what that shape costs in the engine and the SDK, apart from",
    "anything pulumi-mgmt's provider does; SearchIndex now stores 7 outputs, one secret (docs/resources.md, SearchIndex). The shaped provider is a closure,",
    "like the baseline's, that carries the outputs as a literal (about 1.4 KB more state per resource than a module reference).",
    "The emulator runs in a process of its own, as in `npm run bench`.",
    "",
    "| resource | up | ratio to sleep-only |",
    "|---|---:|---:|",
    ...rows,
  ].join("\n");
  process.stdout.write(`\n${text}\n`);
  // A run of some variants only (bench:profile's) is not the section's table.
  if (!process.env.VARIANTS) writeSection("shape", text);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
