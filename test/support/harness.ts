/**
 * The e2e harness every engine test uses: an emulator on a loopback port, stacks on a temporary
 * file:// backend with a passphrase, the built (or PATH) Pulumi CLI, and clean-up of both.
 */
import { rmSync } from "node:fs";
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
  stack(options: { program?: PulumiFn; workDir?: string; stackName?: string; config?: ConfigMap; mgmt?: MgmtConfig; envVars?: Record<string, string> }): Promise<MgmtStack>;
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
  const stacks: MgmtStack[] = [];
  return {
    emu,
    mgmt,
    client,
    async stack(o) {
      const s = await mgmtStack({ ...o, mgmt: { ...mgmt, ...o.mgmt } });
      stacks.push(s);
      return s;
    },
    async cleanup() {
      for (const s of stacks) {
        try {
          await s.stack.workspace.removeStack(s.stack.name, { force: true });
        } catch {
          // the backend folder goes below anyway
        }
        rmSync(s.backendDir, { recursive: true, force: true });
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

/** Counts of API requests in the emulator's log since the last reset, by `METHOD route`. */
export function apiCalls(emu: RunningEmulator): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of emu.requests()) counts[r.route] = (counts[r.route] ?? 0) + 1;
  return counts;
}

export function writes(emu: RunningEmulator): number {
  return emu.requests().filter((r) => r.method !== "GET").length;
}
