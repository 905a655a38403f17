/**
 * The service a driver or worker acts on, from the MGMT_* variables (for a local try,
 * `npx mgmt-emulator --env` prints them as shell exports). The names are the settings table's.
 */
import type { MgmtConfig } from "../automation/stack";
import { SETTINGS_KEYS, type SettingName } from "../config";
import { UserError } from "../userError";

/** What every tenant's resources need: the addresses and credentials of each API. */
const NEEDED = [
  "baseUrl",
  "username",
  "password",
  "messagingUrl",
  "regionalMessagingUrl",
  "messagingToken",
] as const satisfies readonly SettingName[];

export function serviceFromEnv(env: NodeJS.ProcessEnv = process.env): MgmtConfig {
  const missing = NEEDED.filter((name) => !env[SETTINGS_KEYS[name].env]).map((name) => SETTINGS_KEYS[name].env);
  if (missing.length > 0)
    throw new UserError(
      `set ${missing.join(", ")} (the service to provision on; for a local try, \`npx mgmt-emulator --env\` prints them as shell exports)`,
    );
  return Object.fromEntries(NEEDED.map((name) => [name, env[SETTINGS_KEYS[name].env]]));
}
