/**
 * `pulumi-mgmt-fleet`: tenants (a stack each), converged on one machine (`converge`, as
 * examples/tenants does) or by workers on many through a PostgreSQL job queue (`submit`,
 * `startWorker`, `status`; the `mgmt-fleet` command), one update per stack ever (fence.ts).
 */
export { checkTenants, readTenants, tenantStack, TENANT_PROJECT, type Tenant } from "./tenant";
export { tenantProgram, useTenantPlugin } from "./tenantResources";
export { converge, type Action, type Drift, type RunOptions, type TenantResult } from "./converge";
export { FenceBusyError, takeFence, type Fence } from "./fence";
export { convergeFenced, type FencedRunOptions } from "./fencedRun";
export { startFencedDriver, type FencedDriver, type FencedDriverOptions } from "./driver";
export { shutdown, type Shutdown } from "./shutdown";
export { settled, status, submit, type SubmitOptions, type TenantStatus } from "./queue";
export { startWorker, type FleetWorker, type WorkerOptions } from "./worker";
export { serviceFromEnv } from "./serviceEnv";
