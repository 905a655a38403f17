/**
 * The main job (`npm start`): runs the root Pulumi.yaml program through the Automation API on a
 * project-local file:// backend, against the embedded emulator or, when MGMT_BASE_URL and
 * credentials are set, against that service.
 *
 *   npm start                 up, a table of what exists, then a preview that shows no change
 *   npm start -- --destroy    tear the stack down
 *   npm start -- --destroy --remove-stack
 *                             and remove the stack itself (its history and config) from the backend
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { OutputMap } from "@pulumi/pulumi/automation";
import { startEmulator, type RunningEmulator } from "../emulator";
import { closeAllPools } from "../provider/api/client";
import { PACKAGE_ROOT, engineReason, mgmtStack, type MgmtConfig } from "../provider/automation";
import { resolveSettings } from "../provider/config";
import { destroyOutput } from "./destroyOutput";

// Overridable so tests can run the main job without touching a developer's own stack.
const STATE_DIR = path.resolve(process.env.PULUMI_MGMT_STATE_DIR ?? path.join(PACKAGE_ROOT, ".pulumi-state"));
const STACK = process.env.PULUMI_MGMT_STACK ?? "dev";

function say(line = ""): void {
  process.stdout.write(`${line}\n`);
}

async function target(): Promise<{ mgmt: MgmtConfig; emu?: RunningEmulator; description: string }> {
  const env = resolveSettings(() => undefined);
  if (env.baseUrl) {
    const missing = (["username", "password"] as const).filter((k) => !env[k]);
    if (missing.length > 0)
      throw new Error(
        `MGMT_BASE_URL is set, so ${missing.map((k) => `MGMT_${k.toUpperCase()}`).join(" and ")} must be set too`,
      );
    const mgmt: MgmtConfig = {};
    for (const key of [
      "baseUrl",
      "username",
      "password",
      "messagingUrl",
      "regionalMessagingUrl",
      "messagingToken",
    ] as const) {
      if (env[key] !== undefined) mgmt[key] = env[key];
    }
    return { mgmt, description: `the service at ${env.baseUrl} (from MGMT_* variables)` };
  }
  // The emulator keeps its state next to the stack's, so a rerun finds what the last run made.
  const emu = await startEmulator({ dataFile: path.join(STATE_DIR, "emulator.json") });
  const alice = emu.users[0];
  for (const account of emu.emulator.data.accounts.filter((a) => a.owner === alice.username)) {
    account.keys["tenant-demo"] ??= { waitListSize: 42, paused: false, rateResets: 0 };
    account.queues["emails"] ??= { paused: true, resumes: 0 };
  }
  emu.emulator.persist();
  return {
    emu,
    mgmt: {
      baseUrl: emu.baseUrl,
      messagingUrl: emu.messagingUrl,
      regionalMessagingUrl: emu.regionalMessagingUrl,
      username: alice.username,
      password: alice.password,
    },
    description: `the embedded emulator at ${emu.url} (state in ${path.relative(process.cwd(), STATE_DIR) || "."}/emulator.json)`,
  };
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function summary(outputs: OutputMap): string {
  const indexes = (outputs.indexes?.value ?? []) as {
    name: string;
    id: string;
    region: string;
    deployedRegion: string;
    type: string;
    endpoint: string;
  }[];
  const rows = [["NAME", "ID", "REGION", "PLAN", "ENDPOINT", "TOKEN"]];
  for (const i of indexes) {
    const region = i.deployedRegion === i.region ? i.region : `${i.region} (deployed ${i.deployedRegion})`;
    rows.push([i.name, i.id, region, i.type, i.endpoint, "[secret]"]);
  }
  const lines = ["Search indexes", table(rows)];
  const budget = outputs.messagingBudget?.value as
    { accountId: string; region: string; budget: number; previousBudget: number } | undefined;
  if (budget) {
    lines.push(
      "",
      "Messaging budget",
      table([
        ["ACCOUNT", "REGION", "BUDGET", "BEFORE"],
        [budget.accountId, budget.region, `$${budget.budget}/month`, `$${budget.previousBudget}/month`],
      ]),
    );
  }
  const keys = (outputs.keyStates?.value ?? {}) as Record<string, { paused: boolean; waitListSize: number }>;
  if (Object.keys(keys).length > 0) {
    const rows = [
      ["FLOW CONTROL KEY", "PAUSED", "WAIT LIST"],
      ...Object.entries(keys).map(([k, s]) => [k, String(s.paused), String(s.waitListSize)]),
    ];
    lines.push("", "Flow control", table(rows));
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const destroy = process.argv.includes("--destroy");
  const removeStack = process.argv.includes("--remove-stack");
  if (removeStack && !destroy)
    throw new Error("--remove-stack goes with --destroy: npm start -- --destroy --remove-stack");
  mkdirSync(STATE_DIR, { recursive: true });
  const { mgmt, emu, description } = await target();
  say(`pulumi-mgmt main job: using ${description}`);
  say(`stack "${STACK}" of ${path.join(PACKAGE_ROOT, "Pulumi.yaml")}, state in ${STATE_DIR}`);
  try {
    // Against the emulator the state is a local demo's: its own passphrase. Against a real
    // service the user's PULUMI_CONFIG_PASSPHRASE (or secrets provider) is required.
    // Transpile only: `npm test` type-checks examples/quickstart (tsconfig.json), and ts-node's
    // check would cost each of this job's two program runs about four seconds.
    const envVars = { PULUMI_NODEJS_TRANSPILE_ONLY: "true" };
    const mine = await mgmtStack({
      workDir: PACKAGE_ROOT,
      stackName: STACK,
      backendDir: STATE_DIR,
      mgmt,
      envVars,
      ...(emu ? { passphrase: "pulumi-mgmt-emulator-demo", offline: true } : {}),
    });
    const stack = mine.stack;
    // Settings of an earlier run that this one does not give (say, the emulator's) must not linger.
    // (Read from the stack's settings file: the keys are plain there, and no CLI command is needed.)
    const stale = Object.keys((await stack.workspace.stackSettings(STACK).catch(() => undefined))?.config ?? {}).filter(
      (k) => k.startsWith("mgmt:") && !(k.slice(5) in mgmt),
    );
    if (stale.length > 0) await stack.removeAllConfig(stale);
    const onOutput = (out: string) => process.stdout.write(out);
    if (destroy) {
      // runProgram: the provider must use this run's address and credentials, not the ones
      // recorded in state by the last up (the emulator listens on a new port each run).
      const shown = destroyOutput(onOutput);
      const result = await mine.destroy({ onOutput: shown.onOutput, runProgram: true }).finally(() => shown.end());
      say(`\ndestroy: ${result.summary.result}`);
      if (removeStack) {
        await stack.workspace.removeStack(STACK);
        say(`stack "${STACK}" removed (its history and config too)`);
      } else {
        say(
          `the stack "${STACK}" is empty; its history and config remain: \`npm start -- --destroy --remove-stack\` removes it too`,
        );
      }
      return;
    }
    const up = await mine.up({ onOutput });
    say(`\n${summary(up.outputs)}\n`);
    // An up that changed nothing was already the program's check against the service: a
    // preview right after it would run the same program on the same state. Only after changes
    // does a preview prove that the new state is what the program declares (no endless diff).
    const changed = Object.entries(up.summary.resourceChanges ?? {}).some(([op, n]) => op !== "same" && (n ?? 0) > 0);
    if (!changed) {
      say(`no changes: this run's up found all ${up.summary.resourceChanges?.same ?? 0} resources as declared`);
      return;
    }
    say("Checking that a second preview changes nothing...");
    const preview = await stack.preview();
    const changes = Object.entries(preview.changeSummary).filter(([op]) => op !== "same");
    say(
      changes.length === 0
        ? `preview: no changes (${preview.changeSummary.same ?? 0} resources unchanged)`
        : `preview: changes pending: ${JSON.stringify(preview.changeSummary)}`,
    );
    if (changes.length > 0) process.exitCode = 1;
  } finally {
    await closeAllPools();
    await emu?.close();
  }
}

main().catch((err: Error) => {
  // The engine's reason only: a failed command's text carries its --secret config values.
  console.error(`\nmain job failed: ${engineReason(err)}`);
  process.exit(1);
});
