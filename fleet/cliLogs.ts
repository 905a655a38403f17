/**
 * The Pulumi CLI (since 3.25x) writes a log file for every command into $PULUMI_HOME/logs, and at
 * every start lists and stats that whole folder to rotate it (by default it keeps 7 days or
 * 500 MB). A tenant run starts one CLI (two for a new tenant: its stack's creation), and a tenant's logs are a
 * few KB each, so at 500 MB the folder holds about 100,000 files. Each CLI start pays 5 to 15 µs of
 * CPU per file there (measured on a 2-core machine): 0.5 s to 1.5 s per CLI at that size, as much
 * as the rest of its start or more. The tenants' runs therefore keep the folder at
 * TENANT_RUN_LOGS_MB, the last few thousand runs, unless the operator has set
 * PULUMI_LOG_ROTATION_MAX_TOTAL_MB themselves.
 */
export const LOG_CAP_ENV = "PULUMI_LOG_ROTATION_MAX_TOTAL_MB";
export const TENANT_RUN_LOGS_MB = 32;

/** Environment for a tenant run's CLIs: the cap on Pulumi's log folder, unless `env` already sets one. */
export function tenantRunLogCap(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return env[LOG_CAP_ENV] ? {} : { [LOG_CAP_ENV]: String(TENANT_RUN_LOGS_MB) };
}
