/**
 * What `mgmt-fleet --help` and `mgmt-fleet <command> --help` print. Kept out of cli.ts so the
 * command's logic and its text change apart; the options named here are the ones cli.ts parses.
 */
const DATABASE = `  --database URL       the fleet's PostgreSQL (postgres://...); else MGMT_FLEET_DATABASE_URL,
                       else a postgres:// PULUMI_BACKEND_URL`;
const MAX_ATTEMPTS = "  --max-attempts N     attempts per job for transient failures (1-25, default 5)";

const COMMANDS = {
  submit: `usage: mgmt-fleet submit <tenants.json> [--wait] [options]
  one converge job per tenant (a tenant still queued gets the newer desired state)
  --wait               wait until every job has ended, then print the table (exit 1 if any failed)
${MAX_ATTEMPTS}
${DATABASE}`,
  worker: `usage: mgmt-fleet worker [--concurrency N] [--work-dir DIR] [options]
  runs jobs until SIGTERM or SIGINT (running updates are cancelled gracefully)
  --concurrency N      updates at a time (1-64, default 4)
  --work-dir DIR       a folder per stack under DIR (default ./.fleet)
  --lock-wait SECONDS  how long a run waits for a Pulumi lock that is not a dead fleet run's
                       (a person's \`pulumi up\`; never broken) before failing (default 300)
${DATABASE}
  needs the service (MGMT_BASE_URL, MGMT_USERNAME, MGMT_PASSWORD, MGMT_MESSAGING_URL,
  MGMT_REGIONAL_MESSAGING_URL, MGMT_MESSAGING_TOKEN) and PULUMI_CONFIG_PASSPHRASE`,
  status: `usage: mgmt-fleet status [--json] [options]
  per tenant: state, action, attempts, duration, error
  --json               the rows as JSON
${DATABASE}`,
  drift: `usage: mgmt-fleet drift <tenants.json> [options]
  a read-only check per tenant; waits, then lists what drifted (exit 3 if any did)
${MAX_ATTEMPTS}
${DATABASE}`,
  destroy: `usage: mgmt-fleet destroy <tenants.json> [--wait] [options]
  one destroy job per tenant
  --wait               wait until every job has ended, then print the table (exit 1 if any failed)
${MAX_ATTEMPTS}
${DATABASE}`,
} as const;

export type FleetCommand = keyof typeof COMMANDS;
export const FLEET_COMMANDS = Object.keys(COMMANDS) as FleetCommand[];

/** The usage of one command, or of them all when `command` is none of them. */
export function fleetUsage(command?: string): string {
  if (command !== undefined && command in COMMANDS) return COMMANDS[command as FleetCommand];
  return `usage: mgmt-fleet <command> [options]   (mgmt-fleet <command> --help for its options)
  submit <tenants.json> [--wait]    one converge job per tenant
  worker [--concurrency 4]          run jobs until SIGTERM/SIGINT
  status [--json]                   per tenant: state, action, attempts, duration, error
  drift <tenants.json>              a read-only check per tenant; exit 3 if any drifted
  destroy <tenants.json> [--wait]   one destroy job per tenant
${DATABASE}`;
}
