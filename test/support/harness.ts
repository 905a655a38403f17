/**
 * The e2e harness every engine test uses: an emulator on a loopback port, stacks on a temporary
 * file:// backend with a passphrase, the built (or PATH) Pulumi CLI, and clean-up of both.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ConfigMap, PulumiFn } from "@pulumi/pulumi/automation";
import { closeAllPools, MgmtClient } from "../../provider/api/client";
import { resolveSettings } from "../../provider/config";
import { mgmtConfigMap, mgmtStack, type MgmtStack, type MgmtConfig } from "../../provider/automation";
import { startEmulator, type RunningEmulator, type StartOptions } from "../../emulator";

export { pulumiCliDir } from "../../provider/automation";

export interface TestEnv {
  emu: RunningEmulator;
  /** alice's settings: what a stack is configured with. */
  mgmt: MgmtConfig;
  /** A client as alice, for out-of-band changes and checks. */
  client: MgmtClient;
  stack(options: {
    program?: PulumiFn;
    workDir?: string;
    stackName?: string;
    projectName?: string;
    config?: ConfigMap;
    mgmt?: MgmtConfig;
    envVars?: Record<string, string>;
    backendDir?: string;
  }): Promise<MgmtStack>;
  cleanup(): Promise<void>;
}

export async function testEnv(options: StartOptions = {}): Promise<TestEnv> {
  const emu = await startEmulator(options);
  const alice = emu.users[0];
  const mgmt: MgmtConfig = {
    baseUrl: emu.baseUrl,
    messagingUrl: emu.messagingUrl,
    regionalMessagingUrl: emu.regionalMessagingUrl,
    username: alice.username,
    password: alice.password,
    // Quick retries keep fault tests short; the policy is the same as in production.
    timeoutMs: 3000,
  };
  const client = clientFor(mgmt);
  // Each stack, and the work folder the SDK made for its inline program (automation-*), which the SDK never removes.
  const stacks: { s: MgmtStack; sdkWorkDir?: string }[] = [];
  return {
    emu,
    mgmt,
    client,
    async stack(o) {
      const s = await mgmtStack({ ...testBackend(), ...o, mgmt: { ...mgmt, ...o.mgmt } });
      stacks.push({ s, sdkWorkDir: o.workDir === undefined ? s.stack.workspace.workDir : undefined });
      return s;
    },
    async cleanup() {
      for (const { s, sdkWorkDir } of stacks) {
        // A file backend goes with its folder: a `pulumi stack rm` first would only cost a CLI
        // (about 0.6 s of CPU each, hundreds in the suite).
        if (s.backendDir) rmSync(s.backendDir, { recursive: true, force: true });
        else await s.stack.workspace.removeStack(s.stack.name, { force: true }).catch(() => undefined);
        if (sdkWorkDir) rmSync(sdkWorkDir, { recursive: true, force: true });
      }
      await closeAllPools();
      await emu.close();
    },
  };
}

/** A client configured exactly like a stack with these `mgmt:*` settings (no environment). */
export function clientFor(mgmt: MgmtConfig): MgmtClient {
  const byKey = mgmtConfigMap(mgmt);
  return new MgmtClient(resolveSettings((key) => byKey[key]?.value, {}));
}

/** The message of the error a command fails with; the test fails if it succeeds. */
export async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected the command to fail");
}

/** Counts of API requests in the emulator's log since the last reset, by `METHOD route`. */
export function apiCalls(emu: RunningEmulator): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of emu.requests()) counts[r.route] = (counts[r.route] ?? 0) + 1;
  return counts;
}

export function writes(emu: RunningEmulator): number {
  return emu.requests().filter((r) => r.method !== "GET").length;
}

/** The fields a preview's `[diff: ...]` annotations name (Pulumi writes +added, -removed, ~changed), sorted. */
export function diffFields(stdout: string): string[] {
  const fields = new Set<string>();
  for (const [, diff] of stdout.matchAll(/\[diff: ([^\]]*)\]/g))
    for (const [, field] of diff.matchAll(/[+~-]([^+~\s-]+)/g)) fields.add(field);
  return [...fields].sort();
}

export const SECRET_SIG = "4dabf18193072939515e22adb298388d";

export interface ExportedResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/**
 * The stack's resources of one type, as `pulumi stack export` gives them but with secrets still
 * encrypted: on a file backend, read from the stack's checkpoint (a CLI less, about 0.75 s of CPU:
 * 29 of the 44 exports of searchIndex and objectSafety; tests check that a value is secret, never
 * its plain text); on another backend, or where the backend holds more than one stack of that
 * name, from the export.
 */
export async function exported(s: MgmtStack, type: string): Promise<ExportedResource[]> {
  const name = `${s.stack.name.split("/").pop()}.json`;
  const checkpoints = s
    .backendDirFiles()
    .filter((f) => path.basename(f) === name && f.includes(`${path.sep}stacks${path.sep}`));
  const resources =
    checkpoints.length === 1
      ? JSON.parse(readFileSync(checkpoints[0], "utf8")).checkpoint.latest?.resources
      : (await s.stack.exportStack()).deployment.resources;
  return ((resources ?? []) as ExportedResource[]).filter((r) => r.type === type);
}

/** The value Pulumi's state puts under SECRET_SIG to mark a secret. */
const SECRET_MARK = "1b47061264138c4ac30d75fd1eb44270";

export function isSecret(value: unknown): boolean {
  return !!value && typeof value === "object" && (value as Record<string, unknown>)[SECRET_SIG] === SECRET_MARK;
}

/** Whether any file of the backend (state, history, backups) holds one of these strings in plain text. */
export function backendContains(s: MgmtStack, needles: string[]): string[] {
  const found: string[] = [];
  for (const file of s.backendDirFiles()) {
    const text = readFileSync(file, "utf8");
    for (const n of needles) if (n && text.includes(n)) found.push(`${n.slice(0, 6)}… in ${file}`);
  }
  return found;
}

/**
 * Runs declarations inside an inline program, turning a thrown error into an engine error.
 * Outside Jest, Pulumi's own handler does this for an uncaught error; inside Jest, Jest claims
 * the unhandled rejection first and fails the test instead of letting `up` report it.
 */
export function declaring(declare: () => unknown): void {
  try {
    declare();
  } catch (err) {
    (require("@pulumi/pulumi") as typeof import("@pulumi/pulumi")).log.error((err as Error).message);
  }
}

/**
 * A fresh emulator (reset) and alice's free eu-central-1 messaging account: its seed info (id,
 * token) and its live record, whose keys and queues a test fills in.
 */
export function freshMessagingAccount(env: TestEnv) {
  env.emu.emulator.reset();
  return messagingAccount(env, "free");
}

/** alice's eu-central-1 messaging account of this type, as seeded: its seed info and its live record. */
export function messagingAccount(env: TestEnv, type: "free" | "paid") {
  const info = env.emu.users[0].accounts.find((a) => a.region === "eu-central-1" && a.type === type)!;
  const account = env.emu.emulator.data.accounts.find((a) => a.record.id === info.id)!;
  return { info, token: info.token, account };
}

/**
 * What every test stack runs on: a new temporary file:// backend, a passphrase that exists only
 * in tests, and no update check or plugin download. (The package itself has no default for
 * either: see mgmtStack.) The backend is made in the run's folder of stacks (globalSetup.ts),
 * which goes with the run even when a test leaves its own behind.
 */
export function testBackend(): { backendDir: string; passphrase: string; offline: true } {
  return {
    backendDir: mkdtempSync(path.join(process.env.PULUMI_MGMT_TEST_STATES ?? tmpdir(), "pulumi-mgmt-test-state-")),
    passphrase: "test-only-passphrase",
    offline: true,
  };
}
