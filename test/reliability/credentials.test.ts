/**
 * Service text is untrusted. A service (or a proxy in front of it) that echoes the request's
 * Authorization header in its error answers must not make any output show a credential the
 * client sent: not the password, not the Basic value, not the decoded `user:password`, not a
 * messaging token. The program is a user's, run by the engine in its own process
 * (test/fixtures/first-hour), and the failing command is a plain `pulumi refresh`.
 */
import path from "node:path";
import { failure, testEnv, type TestEnv } from "../support/harness";

const PROGRAM = path.join(__dirname, "../fixtures/first-hour");
let env: TestEnv;
let stacks = 0;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());
beforeEach(() => env.emu.emulator.reset());

test.each([
  ["a search index (HTTP Basic)", "index", { method: "GET", path: "^/v2/search" }],
  ["a queue (a bearer token)", "queue", { method: "GET", path: "/v2/queues/jobs$" }],
])(
  "%s: an answer that echoes the Authorization header shows no credential in any output",
  async (_label, scenario, route) => {
    const token = env.emu.users[0].accounts[0].token;
    const s = await env.stack({
      workDir: PROGRAM,
      stackName: `credentials-${process.pid}-${++stacks}`,
      mgmt: { messagingToken: token },
      config: { scenario: { value: scenario } },
    });
    await s.up();
    env.emu.addFault({ ...route, status: 500, echoAuthorization: true, times: 100 });
    let streamed = "";
    const message = await failure(s.refresh({ onOutput: (o) => (streamed += o) }));
    env.emu.emulator.controls.clearFaults();

    const { username, password } = env.mgmt as { username: string; password: string };
    const credentials = [
      password,
      `${username}:${password}`,
      Buffer.from(`${username}:${password}`).toString("base64"),
      token,
    ];
    const shown = `${message}\n${streamed}`;
    // The failure is the service's, and its text is there, with the credentials taken out.
    expect(shown).toMatch(/500: injected fault; request had Authorization: (Basic|Bearer) \[redacted\]/);
    for (const c of credentials) expect(shown).not.toContain(c);
    await s.destroy();
  },
);
