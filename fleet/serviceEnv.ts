/**
 * The service a driver or worker acts on, from the MGMT_* variables (for a local try,
 * `npx mgmt-emulator --env` prints them as shell exports). The names are the settings table's.
 */
import type { MgmtConfig } from "pulumi-mgmt/internal/automation/stack";
import { SETTINGS_KEYS, type SettingName } from "pulumi-mgmt/internal/config";
import { UserError } from "pulumi-mgmt/internal/userError";

/** What every tenant's resources need: the addresses and credentials of each API. */
const NEEDED = [
  "baseUrl",
  "username",
  "password",
  "messagingUrl",
  "regionalMessagingUrl",
  "messagingToken",
] as const satisfies readonly SettingName[];

/**
 * `passphrase`: the caller's runs open passphrase-protected stacks (a fleet worker's), so a missing
 * PULUMI_CONFIG_PASSPHRASE is said here, with the rest, before any job takes an attempt to fail.
 */
export function serviceFromEnv(env: NodeJS.ProcessEnv = process.env, o: { passphrase?: boolean } = {}): MgmtConfig {
  const missing = NEEDED.filter((name) => !env[SETTINGS_KEYS[name].env]).map((name) => SETTINGS_KEYS[name].env);
  const noPassphrase =
    o.passphrase === true &&
    env.PULUMI_CONFIG_PASSPHRASE === undefined &&
    env.PULUMI_CONFIG_PASSPHRASE_FILE === undefined;
  if (missing.length > 0)
    throw new UserError(
      `set ${[...missing, ...(noPassphrase ? ["PULUMI_CONFIG_PASSPHRASE"] : [])].join(", ")} (the service to provision on${noPassphrase ? ", and the passphrase of the tenant stacks' secrets" : ""}; for a local try, \`npx mgmt-emulator --env\` prints the service's as shell exports)`,
    );
  if (noPassphrase)
    throw new UserError(
      "set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE): the passphrase of the tenant stacks' secrets, the same on every worker",
    );
  return Object.fromEntries(NEEDED.map((name) => [name, env[SETTINGS_KEYS[name].env]]));
}
