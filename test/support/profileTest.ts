/**
 * `npm run test:profile` (scripts/test-profile.sh): every Pulumi CLI a test starts, directly or
 * through a driver or worker process, inherits the name of the running test from these variables,
 * and the CLI shim the profile puts in front of `pulumi` logs it with the command. Without the
 * profile's log, this does nothing.
 */
const log = process.env.PULUMI_MGMT_PROFILE_LOG;
if (log) {
  const file = expect.getState().testPath ?? "";
  process.env.PULUMI_MGMT_PROFILE_FILE = file;
  process.env.PULUMI_MGMT_PROFILE_TEST = "(beforeAll)";
  beforeEach(() => {
    process.env.PULUMI_MGMT_PROFILE_TEST = expect.getState().currentTestName ?? "(unnamed)";
  });
  afterEach(() => {
    process.env.PULUMI_MGMT_PROFILE_TEST = "(afterAll)";
  });
}
