/**
 * `pulumi-mgmt/fleet`: tenants (a stack each), converged on one machine (`converge`, as
 * examples/tenants does) or by workers on many through a PostgreSQL job queue (`submit`,
 * `startWorker`, `status`; the `mgmt-fleet` command), one update per stack ever (fence.ts).
 */
export { checkTenants, readTenants, tenantProgram, tenantStack, TENANT_PROJECT, type Tenant } from "./tenant";
export { useTenantPlugin } from "./tenantResources";
export { converge, type Action, type Drift, type RunOptions, type TenantResult } from "./converge";
export { FenceBusyError, takeFence, type Fence } from "./fence";
export { convergeFenced, type FencedRunOptions } from "./fencedRun";
export { startFencedDriver, type FencedDriver, type FencedDriverOptions } from "./driver";
export { shutdown, type Shutdown } from "./shutdown";
export {
  settled,
  startWorker,
  status,
  submit,
  type FleetWorker,
  type SubmitOptions,
  type TenantStatus,
  type WorkerOptions,
} from "./queue";
export { serviceFromEnv } from "./serviceEnv";
