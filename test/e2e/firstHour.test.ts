/**
 * A new user's first hour: errors they can act on print as one clear message without a stack
 * trace, and bad configuration fails at `preview`, before anything is created, even for a
 * program whose resources would make no call then.
 */
import path from "node:path";
import { testEnv, type TestEnv } from "../support/harness";

/** A program run by the engine in its own process, as a user's is (test/fixtures/first-hour). */
const PROGRAM = path.join(__dirname, "../fixtures/first-hour");
let stacks = 0;
const scenario = (name: string, mgmt: Record<string, unknown> = {}) =>
  env.stack({ workDir: PROGRAM, stackName: `first-hour-${process.pid}-${++stacks}`, mgmt: mgmt as never, config: { scenario: { value: name } } });

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());
beforeEach(() => env.emu.emulator.reset());

/** A JavaScript stack frame, as Node prints them: "    at fn (/path/file.js:12:34)". */
const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected the command to fail");
}

test("no mgmt:baseUrl: one line that says what to run, no stack trace", async () => {
  const s = await scenario("account", { baseUrl: undefined });
  const message = await failure(s.stack.up());
  expect(message).toMatch(/mgmt:baseUrl is not set \(needed to reach the management API\): run `pulumi config set mgmt:baseUrl \.\.\.` or set MGMT_BASE_URL/);
  expect(message).not.toMatch(STACK_FRAME);
  expect(message).not.toMatch(/unhandled exception/);
});

test.each([
  ["a negative timeout", { timeoutMs: -5 }, /mgmt:timeoutMs \(or MGMT_TIMEOUT_MS\) must be a whole number of at least 0, got "-5"/],
  ["a retry count that is not a number", { maxRetries: "lots" }, /mgmt:maxRetries \(or MGMT_MAX_RETRIES\) must be a whole number of at least 0, got "lots"/],
  ["an address that is not http(s)", { baseUrl: "ftp://files.example.com" }, /mgmt:baseUrl \(or MGMT_BASE_URL\) must be an http:\/\/ or https:\/\/ address, got "ftp:\/\/files\.example\.com"/],
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
