/**
 * Runs in every test file before anything else (jest.config.js `setupFiles`): tests must never
 * reach a real service or a developer's own Pulumi backend, so every MGMT_* and PULUMI_*
 * variable exported in the shell that started Jest is removed. Tests set what they need
 * explicitly (the harness passes config and a file:// backend to each stack).
 */
// Test-suite switches, not settings: kept (the CLI's folder and the profile's log: npm run test:profile).
const KEEP = new Set([
  "MGMT_MATRIX_LEGS",
  "MGMT_RECORD_BACKEND_LAYOUTS",
  "PULUMI_MGMT_CACHE",
  "PULUMI_MGMT_CLI_DIR",
  "PULUMI_MGMT_PROFILE_LOG",
  "PULUMI_MGMT_TEST_HOME",
  "PULUMI_MGMT_TEST_STATES",
]);
for (const name of Object.keys(process.env)) {
  if ((name.startsWith("MGMT_") || name.startsWith("PULUMI_")) && !KEEP.has(name)) delete process.env[name];
}
// The run's own Pulumi home (globalSetup.ts), not the developer's: the CLIs' logs, the selected stacks.
if (process.env.PULUMI_MGMT_TEST_HOME) process.env.PULUMI_HOME = process.env.PULUMI_MGMT_TEST_HOME;
