/**
 * A new user's first hour: errors they can act on print as one clear message without a stack
 * trace, and bad configuration fails at `preview`, before anything is created, even for a
 * program whose resources would make no call then.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ConfigMap } from "@pulumi/pulumi/automation";
import { checkSettingKeys } from "../../provider/config";
import { installPlugin } from "../../provider/plugin/install";
import { exported, failure, testEnv, type TestEnv } from "../support/harness";
import { PLUGIN_MAIN } from "../support/pluginProcess";

/** A program run by the engine in its own process, as a user's is (test/fixtures/first-hour). */
const PROGRAM = path.join(__dirname, "../fixtures/first-hour");
let stacks = 0;
const scenario = (name: string, mgmt: Record<string, unknown> = {}, config: ConfigMap = {}) =>
  env.stack({
    workDir: PROGRAM,
    stackName: `first-hour-${process.pid}-${++stacks}`,
    mgmt: mgmt as never,
    config: { scenario: { value: name }, ...config },
  });
/** Every setting the harness would give a stack, left out. */
const noSettings = () => Object.fromEntries(Object.keys(env.mgmt).map((k) => [k, undefined]));

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());
beforeEach(() => env.emu.emulator.reset());

/** A JavaScript stack frame, as Node prints them: "    at fn (/path/file.js:12:34)". */
const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;

test("no mgmt:baseUrl: one line that says what to run, no stack trace", async () => {
  const s = await scenario("account", { baseUrl: undefined });
  const message = await failure(s.up());
  expect(message).toMatch(
    /mgmt:baseUrl is not set \(needed to reach the management API\): run `pulumi config set mgmt:baseUrl \.\.\.` or set MGMT_BASE_URL/,
  );
  expect(message).not.toMatch(STACK_FRAME);
  expect(message).not.toMatch(/unhandled exception/);
});

test("a setting that a function call and every resource need, missing: said once, plainly, not once per resource or wrapped", async () => {
  const s = await scenario("quickstart", { baseUrl: undefined });
  const message = await failure(s.stack.preview());
  // The engine's summary of the run: each diagnostic once (the progress lines repeat them).
  const diagnostics = message.split("Diagnostics:")[1].split("Resources:")[0];
  expect(diagnostics.match(/mgmt:baseUrl is not set/g)).toHaveLength(1);
  expect(diagnostics).toMatch(
    /^\s+error: mgmt:baseUrl is not set \(needed to reach the management API\): run `pulumi config set mgmt:baseUrl \.\.\.` or set MGMT_BASE_URL$/m,
  );
  expect(message).not.toMatch(/has a problem/);
});

test.each([
  [
    "a negative timeout",
    { timeoutMs: -5 },
    /mgmt:timeoutMs \(or MGMT_TIMEOUT_MS\) must be a whole number of at least 0, got "-5"/,
  ],
  [
    "a retry count that is not a number",
    { maxRetries: "lots" },
    /mgmt:maxRetries \(or MGMT_MAX_RETRIES\) must be a whole number of at least 0, got "lots"/,
  ],
  [
    "an address that is not http(s)",
    { baseUrl: "ftp://files.example.com" },
    /mgmt:baseUrl \(or MGMT_BASE_URL\) must be an http:\/\/ or https:\/\/ address, got "ftp:\/\/files\.example\.com"/,
  ],
])("%s fails at preview, with no call made and nothing created", async (_label, mgmt, expected) => {
  // Previewing a create makes no call: only the program-side check can catch the setting.
  const s = await scenario("index", mgmt);
  env.emu.resetLog();
  const message = await failure(s.stack.preview());
  expect(message).toMatch(expected);
  expect(message).not.toMatch(STACK_FRAME);
  expect(env.emu.requests()).toEqual([]);
  expect((await s.stack.exportStack()).deployment.resources ?? []).toEqual([]);
});

test("bad input names the resource and the field, without a stack trace", async () => {
  const s = await scenario("badInput", { messagingToken: env.emu.users[0].accounts[0].token });
  const message = await failure(s.stack.preview());
  expect(message).toMatch(/MessagingControls "ops": flowControlKeys\[0\]\.pin\.rate: must be at least 1/);
  expect(message).not.toMatch(STACK_FRAME);
});

test("a brand-new stack with no config at all: preview and up each say what to set, in one line", async () => {
  // No `scenario` either: the program runs as a user's first one, with an empty stack config.
  const s = await env.stack({
    workDir: PROGRAM,
    stackName: `first-hour-${process.pid}-${++stacks}`,
    mgmt: noSettings() as never,
  });
  expect(await s.stack.getAllConfig()).toEqual({});
  env.emu.resetLog();
  for (const run of [() => s.stack.preview(), () => s.up()]) {
    const message = await failure(run());
    expect(message).toMatch(/mgmt:baseUrl is not set \(needed to reach the management API\)/);
    expect(message).not.toMatch(/TypeError|Cannot convert undefined/);
    expect(message).not.toMatch(STACK_FRAME);
  }
  expect(env.emu.requests()).toEqual([]);
  expect(await exported(s, "mgmt:index:SearchIndex")).toEqual([]);
});

describe("a preview fails when the up would: a setting the resource's calls need is missing", () => {
  test.each([
    ["index", "baseUrl", /mgmt:baseUrl is not set \(needed to reach the management API\)/],
    ["index", "username", /mgmt:username is not set \(needed to authenticate to the management API\)/],
    [
      "index",
      "password",
      /mgmt:password is not set \(needed to authenticate to the management API\): run `pulumi config set --secret mgmt:password \.\.\.`/,
    ],
    ["budget", "password", /mgmt:password is not set/],
    [
      "queue",
      "regionalMessagingUrl",
      /mgmt:regionalMessagingUrl is not set \(needed to reach the regional messaging API\)/,
    ],
    ["queue", "messagingToken", /mgmt:messagingToken is not set \(needed to authenticate to the messaging API\)/],
  ])("%s without mgmt:%s", async (name, setting, expected) => {
    const accountId = env.emu.users[0].accounts[0].id;
    const s = await scenario(name, { [setting]: undefined }, { accountId: { value: accountId } });
    env.emu.resetLog();
    const message = await failure(s.stack.preview());
    expect(message).toMatch(expected);
    expect(message).not.toMatch(STACK_FRAME);
    expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
    expect((await s.stack.exportStack()).deployment.resources ?? []).toEqual([]);
  });
});

test("a mistyped mgmt:* key fails at preview with the key it meant", async () => {
  const s = await scenario("index", { baseUrl: undefined }, { "mgmt:baseurl": { value: env.emu.baseUrl } });
  env.emu.resetLog();
  const message = await failure(s.stack.preview());
  expect(message).toMatch(/mgmt:baseurl is not a pulumi-mgmt setting: did you mean `mgmt:baseUrl`\?/);
  expect(message).not.toMatch(STACK_FRAME);
  expect(env.emu.requests()).toEqual([]);
});

test("through the plugin (a YAML program), a mistyped mgmt:* key fails at preview with the same line", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "mgmt-first-hour-yaml-"));
  try {
    const pluginDir = path.join(dir, ".plugin");
    installPlugin(pluginDir, PLUGIN_MAIN);
    writeFileSync(
      path.join(dir, "Pulumi.yaml"),
      `name: first-hour-yaml\nruntime: yaml\nplugins:\n  providers:\n    - name: mgmt\n      path: ${pluginDir}\n` +
        "resources:\n  docs:\n    type: mgmt:index:SearchIndex\n    properties: { name: docs, region: eu-west-1, type: free }\n",
    );
    const s = await env.stack({
      workDir: dir,
      stackName: `first-hour-yaml-${process.pid}`,
      mgmt: { baseUrl: undefined } as never,
      config: { "mgmt:baseURL": { value: env.emu.baseUrl } },
    });
    env.emu.resetLog();
    const message = await failure(s.stack.preview());
    let door = "";
    try {
      checkSettingKeys(["mgmt:baseURL"]);
    } catch (err) {
      door = (err as Error).message;
    }
    expect(door).toMatch(/did you mean `mgmt:baseUrl`\?/);
    expect(message).toContain(door);
    expect(message).not.toMatch(/mgmt:baseUrl is not set/);
    expect(message).not.toMatch(STACK_FRAME);
    expect(env.emu.requests()).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a password changed since the last up: a plain refresh says it used the recorded one, and --run-program works", async () => {
  const s = await scenario("index");
  await s.up();
  const oldPassword = env.mgmt.password!;
  const newPassword = "rotated-by-the-operator";
  env.emu.emulator.data.users[0].password = newPassword;
  await s.stack.setConfig("mgmt:password", { value: newPassword, secret: true });

  const message = await failure(s.refresh());
  expect(message).toMatch(/401/);
  expect(message).toMatch(
    /a plain `pulumi refresh` or `pulumi destroy` still uses the ones recorded then: add `--run-program` to it \(or run `pulumi up` first\)/,
  );
  expect(message).not.toContain(oldPassword);
  expect(message).not.toContain(newPassword);
  expect(message).not.toMatch(STACK_FRAME);

  const fixed = await s.refresh({ runProgram: true });
  expect(fixed.summary.result).toBe("succeeded");

  // The service's address changes: the last up went through an address that is gone now, and the
  // config was fixed since. A plain destroy uses the recorded address: it says so, in one line.
  const baseUrl = String(env.mgmt.baseUrl);
  const moved = await forwarder(new URL(baseUrl).port);
  await s.stack.setConfig("mgmt:baseUrl", { value: baseUrl.replace(/:\d+/, `:${moved.port}`) });
  await s.stack.setConfig("mgmt:maxRetries", { value: "1" });
  await s.up();
  await moved.close();
  await s.stack.setConfig("mgmt:baseUrl", { value: baseUrl });
  const gone = await failure(s.destroy());
  expect(gone).toMatch(
    /failed: no answer \(ECONNREFUSED; check mgmt:baseUrl \(or MGMT_BASE_URL\) and that the service is reachable; if you changed it since the last `pulumi up`, a plain `pulumi refresh` or `pulumi destroy` still uses the one recorded then: add `--run-program` to it/,
  );
  expect(gone).not.toMatch(/answered[^\n]*no answer/);
  // Pulumi's dynamic provider host echoes a failure as "Name: message: <stack>"; ours have no stack.
  expect(gone).not.toMatch(/Error: .*: *$/m);
  expect(gone).not.toMatch(STACK_FRAME);
  await s.destroy({ runProgram: true });
  expect(env.emu.emulator.data.indexes).toEqual([]);
});

/** A TCP forwarder to the emulator on a port of its own: an address that can go away. */
async function forwarder(port: string): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(Number(port), "127.0.0.1");
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on("error", () => s.destroy());
      s.on("close", () => sockets.delete(s));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
