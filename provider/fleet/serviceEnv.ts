/**
 * The service a driver or worker acts on, from the MGMT_* variables (for a local try,
 * `npx mgmt-emulator --env` prints them as shell exports).
 */
import type { MgmtConfig } from "../automation/stack";
import { UserError } from "../userError";

const NEEDED = ["MGMT_BASE_URL", "MGMT_USERNAME", "MGMT_PASSWORD", "MGMT_MESSAGING_URL", "MGMT_REGIONAL_MESSAGING_URL", "MGMT_MESSAGING_TOKEN"] as const;

export function serviceFromEnv(env: NodeJS.ProcessEnv = process.env): MgmtConfig {
  const missing = NEEDED.filter((k) => !env[k]);
  if (missing.length > 0) throw new UserError(`set ${missing.join(", ")} (the service to provision on; for a local try, \`npx mgmt-emulator --env\` prints them as shell exports)`);
  return {
    baseUrl: env.MGMT_BASE_URL,
    username: env.MGMT_USERNAME,
    password: env.MGMT_PASSWORD,
    messagingUrl: env.MGMT_MESSAGING_URL,
    regionalMessagingUrl: env.MGMT_REGIONAL_MESSAGING_URL,
    messagingToken: env.MGMT_MESSAGING_TOKEN,
  };
}
