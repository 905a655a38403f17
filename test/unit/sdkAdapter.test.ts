/**
 * sdkAdapter.ts holds all that pulumi-mgmt relies on beyond the SDK's published API, and
 * `sdkAdapterProblems()` says when the loaded SDK no longer has it. Here: it holds for the
 * installed SDK, and an SDK that moved (simulated by changing the installed one) is reported.
 * test/matrix/compat.test.ts asks the same of every leg's SDK.
 */
import path from "node:path";
import { Stack, type UpOptions } from "@pulumi/pulumi/automation";
import { sdkAdapterProblems, sdkGrpcClientOptions, sdkVersion } from "../../provider/automation/sdkAdapter";

const settings = require(path.join(path.dirname(require.resolve("@pulumi/pulumi")), "runtime/settings")) as {
  grpcClientOptions?: Record<string, unknown>;
};

test("the installed SDK has everything the adapter relies on", async () => {
  expect(sdkVersion()).toMatch(/^3\.\d+\.\d+/);
  expect(await sdkAdapterProblems()).toEqual([]);
  expect(sdkGrpcClientOptions()).toBe(settings.grpcClientOptions);
});

test("an SDK whose up reads more after its command (here: `stack history` itself) is reported", async () => {
  const original = Stack.prototype.up;
  Stack.prototype.up = async function (this: Stack, opts?: UpOptions) {
    const result = await original.call(this, opts);
    await this.history(1);
    return result;
  };
  try {
    expect(await sdkAdapterProblems()).toEqual([
      expect.stringMatching(
        /its up ran \[up, stack history\] and asked the stack for \[outputs, summary\] \(expected \[up\] and \[outputs, summary\]\): leanOps\.ts would not save/,
      ),
    ]);
  } finally {
    Stack.prototype.up = original;
  }
});

test("an SDK whose destroy no longer asks the stack for its summary is reported", async () => {
  const original = Stack.prototype.destroy;
  Stack.prototype.destroy = async function (this: Stack) {
    return { stdout: "", stderr: "", summary: (await this.history(1))[0] };
  };
  try {
    expect(await sdkAdapterProblems()).toEqual([
      expect.stringMatching(/its destroy ran \[stack history\] and asked the stack for \[\]/),
    ]);
  } finally {
    Stack.prototype.destroy = original;
  }
});

test("an SDK without its client options object (from 3.248 on) is reported", async () => {
  const options = settings.grpcClientOptions;
  delete settings.grpcClientOptions;
  try {
    expect(await sdkAdapterProblems()).toEqual([
      expect.stringMatching(
        /runtime\/settings has no grpcClientOptions object \(present since 3\.248\.0\): isolateEngineConnections\(\) would do nothing/,
      ),
    ]);
  } finally {
    settings.grpcClientOptions = options;
  }
});
