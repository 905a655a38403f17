/**
 * What the dynamic provider host was configured with: the configuration Pulumi hands to
 * `configure`, and one API client built from it on first use. Process state (processState.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import { MgmtClient } from "./api/client";
import { resolveSettings, SETTINGS_KEYS } from "./config";
import { dropUserErrorEchoes } from "./hostEcho";
import { dynamicHostEngine, watchEngine } from "./engineWatch";

import { processState } from "./processState";
import { reportWaitsToEngine } from "./waitNotice";

interface Configured {
  config: Record<string, string>;
  client?: MgmtClient;
}
const configured = (): Configured => processState<Configured>("configured", () => ({ config: {} }));

export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  dropUserErrorEchoes();
  watchEngine();
  const engine = dynamicHostEngine();
  if (engine) reportWaitsToEngine(engine); // no URN here: the engine shows them on the stack's line
  const config: Record<string, string> = {};
  for (const { config: key } of Object.values(SETTINGS_KEYS)) {
    const value = req.config.get(key);
    if (value !== undefined && value !== null) config[key] = String(value);
  }
  useConfig(config);
}

/** The settings by config key ("mgmt:baseUrl"): the dynamic host's `configure` and the plugin's `Configure` both end here. */
export function useConfig(config: Record<string, string>): void {
  Object.assign(configured(), { config, client: undefined });
}

/** The client for this process: Pulumi config `mgmt:*` first, then `MGMT_*` variables. */
export function apiClient(): MgmtClient {
  const state = configured();
  state.client ??= new MgmtClient(resolveSettings((key) => state.config[key]));
  return state.client;
}
