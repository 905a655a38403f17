/**
 * Issue 41: a messaging object's identity is its account, not its token's bytes. A token rotated
 * elsewhere (the console, another stack, an `up` killed after the service committed) leaves the
 * stack able to refresh, update and destroy, and destroy lifts the pause the stack set; a pin part
 * the program drops is given back only while the stack's own value is still in place; with a
 * messaging token alone, a revoked token fails as one line with the way on.
 *
 * Every scenario runs through both front doors (test/support/resourceDoors.ts), by the real
 * engine: the dynamic resources, and the `mgmt` plugin's resources as the generated SDKs declare
 * them (the account's token fed to the key as an output, which the provider harness does not wire).
 */
import type { PinSpec } from "../../provider";
import { recoverPendingCreates } from "../../provider/automation";
import { tokenIdentity } from "../../provider/resources/identity";
import {
  backendContains,
  declaring,
  exported,
  failure,
  freshMessagingAccount,
  isSecret,
  testEnv,
  type TestEnv,
} from "../support/harness";
import { commandLine, descendantsOf } from "../support/processes";
import { dynamicDoor, outputOf, pluginDoor, type ResourceDoor } from "../support/resourceDoors";

const region = "eu-central-1";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

/** POSTs since the last log reset, as "path?query". */
const writeCalls = () =>
  env.emu
    .requests()
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.path.replace(`/regional/${region}/v2`, "")}${r.query ? `?${r.query}` : ""}`);
const DOORS: [string, () => ResourceDoor][] = [
  ["dynamic resources", () => dynamicDoor],
  ["plugin", pluginDoor],
];

describe.each(DOORS)("through the %s", (_label, makeDoor) => {
  let door: ResourceDoor;
  beforeAll(() => {
    door = makeDoor();
  });
  const KEY = () => door.type("FlowControlKey");
  const keyOutputs = async (s: Parameters<typeof exported>[0]) => (await exported(s, KEY()))[0].outputs!;
  /** A stack of this door: its program, and what the door needs in the CLI's environment. */
  const stack = (o: Parameters<TestEnv["stack"]>[0]) => env.stack({ ...o, envVars: { ...o.envVars, ...door.envVars } });

  /** An account with `tokenRotation` (or none) feeding its token to a paused key "k". */
  const accountAndPausedKey = (accountId: string, rotation: () => string | undefined) => async () =>
    declaring(() => {
      const account = door.declare("MessagingAccount", "main", { accountId, tokenRotation: rotation() });
      door.declare("FlowControlKey", "k", { region, token: outputOf(account, "token"), key: "k", paused: true });
    });

  test("1. a token rotated out of band: refresh records the account's current token (secret), up goes on, destroy lifts the pause with the newest token", async () => {
    const { info, account } = freshMessagingAccount(env);
    account.keys.k = { waitListSize: 0, paused: false, rateResets: 0 };
    const s = await stack({ program: accountAndPausedKey(info.id, () => "2026-11-01") });
    await s.up();
    expect(account.keys.k.paused).toBe(true);
    expect((await keyOutputs(s)).managedBy).toBe(`account:${info.id}@${region}`);

    // The security team rotates the token through the management API, as the console does.
    await env.client.messagingAccounts.rotateToken(info.id);
    const rotated = account.record.token;
    await s.refresh();
    const refreshed = await keyOutputs(s);
    expect(refreshed).toMatchObject({
      managedBy: `account:${info.id}@${region}`,
      tokenFingerprint: tokenIdentity(rotated),
      paused: true,
    });
    expect(isSecret(refreshed.token)).toBe(true);
    expect(backendContains(s, [rotated])).toEqual([]);
    env.emu.resetLog();
    await s.up();
    expect(writeCalls()).toEqual([]);

    // Rotated again, and no refresh before destroy: the recorded token is revoked, the account's current one lifts the pause.
    await env.client.messagingAccounts.rotateToken(info.id);
    await s.destroy();
    expect(account.keys.k.paused).toBe(false);
  });

  test("2. two stacks on one account: after A rotates, B refreshes and destroys with the account's current token, lifting its pause", async () => {
    const { info, account } = freshMessagingAccount(env);
    account.keys.k = { waitListSize: 0, paused: false, rateResets: 0 };
    let rotation = "a-1";
    const a = await stack({
      stackName: "team-a",
      program: async () =>
        declaring(() => door.declare("MessagingAccount", "main", { accountId: info.id, tokenRotation: rotation })),
    });
    const b = await stack({ stackName: "team-b", program: accountAndPausedKey(info.id, () => undefined) });
    await a.up();
    await b.up();
    expect(account.keys.k.paused).toBe(true);

    rotation = "a-2";
    await a.up();
    expect(account.record.token).not.toBe(info.token);
    await b.refresh();
    expect(await keyOutputs(b)).toMatchObject({ tokenFingerprint: tokenIdentity(account.record.token) });
    await b.destroy();
    expect(account.keys.k.paused).toBe(false);
  });

  test("3. an up killed after the service committed a rotation: after cancel and recovery, refresh, up and destroy converge on the account's current token", async () => {
    const { info, account } = freshMessagingAccount(env);
    account.keys.k = { waitListSize: 0, paused: false, rateResets: 0 };
    let rotation = "r-1";
    const s = await stack({ stackName: "killed", program: accountAndPausedKey(info.id, () => rotation) });
    await s.up();
    expect(account.keys.k.paused).toBe(true);

    // The rotation commits at once but answers late; the CLI is killed before the answer.
    rotation = "r-2";
    env.emu.addFault({ method: "POST", path: "/rotate-token/", delayAfterMs: 15_000 });
    const up = s.up().then(
      () => "finished",
      () => "killed",
    );
    await until(() => account.record.token !== info.token);
    expect(killOwnPulumi(/pulumi up .*--stack killed/)).toHaveLength(1);
    expect(await up).toBe("killed");
    env.emu.emulator.controls.clearFaults();

    await s.stack.cancel();
    await recoverPendingCreates(s.stack);
    await s.refresh();
    await s.up();
    expect(await keyOutputs(s)).toMatchObject({
      managedBy: `account:${info.id}@${region}`,
      tokenFingerprint: tokenIdentity(account.record.token),
    });
    await s.destroy();
    expect(account.keys.k.paused).toBe(false);
  });

  test("4. a pin part the program drops is given back only while the stack's value is in place: an operator's re-pin stays; state of the token-hash identity is upgraded in place", async () => {
    const { info, token, account } = freshMessagingAccount(env);
    account.keys.k = { waitListSize: 0, paused: false, rateResets: 0 };
    let pin: PinSpec = { parallelism: 2, rate: 10 };
    const s = await stack({
      program: async () => declaring(() => door.declare("FlowControlKey", "k", { region, token, key: "k", pin })),
    });
    await s.up();
    expect(account.keys.k.pinned).toEqual({ parallelism: 2, rate: 10, period: 1 });

    // State as the version before wrote it: the identity is the token's hash. A refresh with
    // management credentials records the account in place, with no write and no replacement.
    const deployment = await s.stack.exportStack();
    for (const r of deployment.deployment.resources ?? []) {
      if (r.type !== KEY()) continue;
      r.outputs.managedBy = tokenIdentity(token);
      delete r.outputs.tokenFingerprint;
    }
    await s.stack.importStack(deployment);
    env.emu.resetLog();
    await s.refresh();
    expect(await keyOutputs(s)).toMatchObject({
      managedBy: `account:${info.id}@${region}`,
      tokenFingerprint: tokenIdentity(token),
    });
    expect(writeCalls()).toEqual([]);

    // An operator re-pins the rate during an incident; then the program drops `rate`.
    await env.client.flowControl({ region, token }).pin("k", { rate: 50, period: 1 });
    pin = { parallelism: 2 };
    env.emu.resetLog();
    await s.up();
    expect(writeCalls()).toEqual([]);
    expect(account.keys.k.pinned).toEqual({ parallelism: 2, rate: 50, period: 1 });

    await s.destroy();
    expect(account.keys.k.pinned).toEqual({ rate: 50, period: 1 });
  });

  test("no management credentials: a revoked token fails refresh and destroy as one line naming the key and the way on; the new token with mgmt:movedFrom goes on", async () => {
    const { info, token, account } = freshMessagingAccount(env);
    account.keys.k = { waitListSize: 0, paused: false, rateResets: 0 };
    const s = await stack({
      mgmt: { username: undefined, password: undefined, messagingToken: token },
      program: async () => declaring(() => door.declare("FlowControlKey", "k", { region, key: "k", paused: true })),
    });
    await s.up();
    const recorded = (await keyOutputs(s)).managedBy as string;
    expect(recorded).toBe(tokenIdentity(token));
    await env.client.messagingAccounts.rotateToken(info.id);

    for (const run of [() => s.refresh(), () => s.destroy()]) {
      const message = await failure(run());
      // The engine shows the error in its progress lines (cut to the terminal's width) and once whole under Diagnostics.
      const said = message
        .split("\n")
        .filter((l) => /revoked/.test(l))
        .map((l) => l.slice(l.indexOf("flow control key")));
      const [whole] = said.sort((a, b) => b.length - a.length);
      expect(said.every((l) => whole.startsWith(l))).toBe(true);
      expect(whole).toMatch(
        /^flow control key "k" in eu-central-1: the token this stack recorded for it was refused \(401\): it was revoked, most likely by a rotation of the account's token/,
      );
      expect(whole).toMatch(/mgmt:messagingToken.*mgmt:movedFrom.*pulumi up.*mgmt:username and mgmt:password/);
      expect(message).not.toMatch(/another account|\n\s+at /);
      expect(message).not.toContain(token);
    }
    expect(account.keys.k.paused).toBe(true);

    await s.stack.setConfig("mgmt:messagingToken", { value: account.record.token, secret: true });
    await s.stack.setConfig("mgmt:movedFrom", { value: recorded });
    await s.up();
    await s.destroy();
    expect(account.keys.k.paused).toBe(false);
  });
});

async function until(condition: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** SIGKILL to this Jest worker's own `pulumi` children whose command line matches (never another process of the machine). */
function killOwnPulumi(pattern: RegExp): number[] {
  const killed = descendantsOf(process.pid).filter((pid) => pattern.test(commandLine(pid)));
  for (const pid of killed) process.kill(pid, "SIGKILL");
  return killed;
}
