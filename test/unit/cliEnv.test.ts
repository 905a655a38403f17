/**
 * The environment of the CLIs the automation helpers start (provider/automation/cli.ts): Go's
 * collector tuned for short runs unless the user tuned it, and the user's choice left whole.
 */
import { CLI_GO_GC, cliEnv } from "../../provider/automation/cli";

const saved = { ...process.env };
afterEach(() => {
  for (const key of ["GOGC", "GOMEMLIMIT", "PULUMI_MGMT_CLI_DIR"]) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});
beforeEach(() => {
  process.env.PULUMI_MGMT_CLI_DIR = "/opt/pulumi/bin";
  delete process.env.GOGC;
  delete process.env.GOMEMLIMIT;
});

test("a CLI the helpers start collects at five times its live heap, with a soft ceiling", () => {
  const env = cliEnv();
  expect(env).toMatchObject({ GOGC: "400", GOMEMLIMIT: "2GiB" });
  expect(env).toMatchObject(CLI_GO_GC);
  expect(env.PATH.split(":")[0]).toBe("/opt/pulumi/bin");
});

test.each([
  ["GOGC", "off"],
  ["GOMEMLIMIT", "512MiB"],
])("a user's own %s leaves Go's collector as the user set it", (key, value) => {
  process.env[key] = value;
  const env = cliEnv(true);
  expect(env.GOGC).toBeUndefined();
  expect(env.GOMEMLIMIT).toBeUndefined();
  expect(env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION).toBe("true");
});

test.each<[Record<string, string>]>([[{ GOGC: "off" }], [{ GOMEMLIMIT: "8GiB" }]])(
  "a run given its own %o gets no collector setting of ours beside it",
  (runEnv) => {
    const env = { ...cliEnv(false, runEnv), ...runEnv }; // as mgmtStack merges them
    expect(env.GOGC).toBe(runEnv.GOGC);
    expect(env.GOMEMLIMIT).toBe(runEnv.GOMEMLIMIT);
  },
);
