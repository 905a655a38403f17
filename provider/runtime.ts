/**
 * Process-wide state of the dynamic provider host: the configuration Pulumi hands to
 * `configure`, and one API client built from it on first use. Loaded by package name from the
 * thin serialized providers, so it is one module instance per provider process.
 */
import type * as pulumi from "@pulumi/pulumi";
import { MgmtClient } from "./api/client";
import { resolveSettings, SETTINGS_KEYS } from "./config";
import { dropUserErrorEchoes } from "./hostEcho";
import { watchEngine } from "./engineWatch";

let config: Record<string, string> = {};
let client: MgmtClient | undefined;

export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  dropUserErrorEchoes();
  watchEngine();
  config = {};
  for (const { config: key } of Object.values(SETTINGS_KEYS)) {
    const value = req.config.get(key);
    if (value !== undefined && value !== null) config[key] = String(value);
  }
  client = undefined;
}

/** The client for this process: Pulumi config `mgmt:*` first, then `MGMT_*` variables. */
export function apiClient(): MgmtClient {
  client ??= new MgmtClient(resolveSettings((key) => config[key]));
  return client;
}
