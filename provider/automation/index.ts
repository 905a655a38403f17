/**
 * `pulumi-mgmt/automation`: what every program that drives stacks from code needs, in one call:
 * the Pulumi CLI (cli.ts), a stack on the backend and secrets provider the user chose with the
 * `mgmt:*` configuration (stack.ts), and recovery after an interrupted run (recovery.ts). Plain
 * `@pulumi/pulumi/automation` stays fully available; this only removes boilerplate. Tests, the
 * main job, the examples and the benchmarks all use it.
 */
export { PACKAGE_ROOT, cliEnv, pulumiCliDir, pulumiCommand } from "./cli";
export {
  SecretsProviderError,
  engineReason,
  mgmtConfigMap,
  mgmtEnv,
  mgmtStack,
  type MgmtConfig,
  type MgmtStack,
  type StackOptions,
} from "./stack";
export {
  leanDestroy,
  leanRefresh,
  leanUp,
  type LeanDestroyResult,
  type LeanRefreshResult,
  type LeanSummary,
  type LeanUpResult,
} from "./leanOps";
/** Whether the loaded @pulumi/pulumi still has what pulumi-mgmt relies on beyond its published API (sdkAdapter.ts). */
export { sdkAdapterProblems } from "./sdkAdapter";
export { recoverPendingCreates, type RecoveryReport } from "./recovery";
/** For drivers that build their own LocalWorkspace with inline programs: see engineConnections.ts. */
export { isolateEngineConnections } from "./engineConnections";
