/**
 * Issue 41: a messaging object's identity is its account, not its token's bytes. A token rotated
 * elsewhere (the console, another stack, an `up` killed after the service committed) leaves the
 * stack able to refresh, update and destroy, and destroy lifts the pause the stack set; a pin part
 * the program drops is given back only while the stack's own value is still in place; with a
 * messaging token alone, a revoked token fails as one line with the way on.
 *
 * Every scenario runs through both front doors (test/support/resourceDoors.ts) at once, by the real
 * engine: one stack's program declares its resources both as dynamic resources and as the `mgmt`
 * plugin's resources, as the generated SDKs declare them (the account's token fed to the key as an
 * output, which the provider harness does not wire), each door on an account of its own. Every
 * check names the door it is about.
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
let doors: ResourceDoor[];
beforeAll(() => {
  doors = [dynamicDoor, pluginDoor()];
});
/** A stack with both doors' resources in one program, and what the doors need in the CLI's environment. */
const stack = (o: Parameters<TestEnv["stack"]>[0]) =>
  env.stack({ ...o, envVars: Object.assign({}, o.envVars, ...doors.map((d) => d.envVars)) });
const keyOutputs = async (s: Parameters<typeof exported>[0], door: ResourceDoor) =>
  (await exported(s, door.type("FlowControlKey")))[0].outputs!;

/**
 * A fresh emulator and, for each door, an eu-central-1 account of alice's of its own (the
 * dynamic door's her free one, the plugin door's her paid one) holding an unpaused key "k".
 */
function accountPerDoor() {
  const { account: free } = freshMessagingAccount(env);
  return doors.map((door) => {
    const info = env.emu.users[0].accounts.find(
      (a) => a.region === region && a.type === (door.name === "dynamic" ? "free" : "paid"),
    )!;
    const account =
      door.name === "dynamic" ? free : env.emu.emulator.data.accounts.find((a) => a.record.id === info.id)!;
    account.keys.k = { waitListSize: 0, paused: false, rateResets: 0 };
    return { door, info, token: info.token, account };
  });
}
type DoorAccount = ReturnType<typeof accountPerDoor>[number];

/** Each door's account with `tokenRotation` (or none) feeding its token to a paused key "k". */
const accountAndPausedKey = (per: DoorAccount[], rotation: () => string | undefined) => async () =>
  declaring(() => {
    for (const { door, info } of per) {
      const account = door.declare("MessagingAccount", "main", { accountId: info.id, tokenRotation: rotation() });
      door.declare("FlowControlKey", "k", { region, token: outputOf(account, "token"), key: "k", paused: true });
    }
  });

test("1. a token rotated out of band: refresh records the account's current token (secret), up goes on, destroy lifts the pause with the newest token", async () => {
  const per = accountPerDoor();
  const s = await stack({ program: accountAndPausedKey(per, () => "2026-11-01") });
  await s.up();
  for (const { door, info, account } of per) {
    expect(account.keys.k.paused).toBe(true);
    expect((await keyOutputs(s, door)).managedBy).toBe(`account:${info.id}@${region}`);
    // The security team rotates the token through the management API, as the console does.
    await env.client.messagingAccounts.rotateToken(info.id);
  }
  await s.refresh();
  for (const { door, info, account } of per) {
    const refreshed = await keyOutputs(s, door);
    expect([door.name, refreshed]).toMatchObject([
      door.name,
      {
        managedBy: `account:${info.id}@${region}`,
        tokenFingerprint: tokenIdentity(account.record.token),
        paused: true,
      },
    ]);
    expect([door.name, isSecret(refreshed.token)]).toEqual([door.name, true]);
    expect([door.name, backendContains(s, [account.record.token])]).toEqual([door.name, []]);
  }
  env.emu.resetLog();
  await s.up();
  expect(writeCalls()).toEqual([]);

  // Rotated again, and no refresh before destroy: the recorded token is revoked, the account's current one lifts the pause.
  for (const { info } of per) await env.client.messagingAccounts.rotateToken(info.id);
  await s.destroy();
  expect(per.map(({ door, account }) => [door.name, account.keys.k.paused])).toEqual(doors.map((d) => [d.name, false]));
});

test("2. two stacks on one account: after A rotates, B refreshes and destroys with the account's current token, lifting its pause", async () => {
  const per = accountPerDoor();
  let rotation = "a-1";
  const a = await stack({
    stackName: "team-a",
    program: async () =>
      declaring(() => {
        for (const { door, info } of per)
          door.declare("MessagingAccount", "main", { accountId: info.id, tokenRotation: rotation });
      }),
  });
  const b = await stack({ stackName: "team-b", program: accountAndPausedKey(per, () => undefined) });
  await a.up();
  await b.up();
  for (const { account } of per) expect(account.keys.k.paused).toBe(true);

  rotation = "a-2";
  await a.up();
  for (const { info, account } of per) expect(account.record.token).not.toBe(info.token);
  await b.refresh();
  for (const { door, account } of per)
    expect([door.name, await keyOutputs(b, door)]).toMatchObject([
      door.name,
      { tokenFingerprint: tokenIdentity(account.record.token) },
    ]);
  await b.destroy();
  expect(per.map(({ door, account }) => [door.name, account.keys.k.paused])).toEqual(doors.map((d) => [d.name, false]));
});

test("3. an up killed after the service committed a rotation: after cancel and recovery, refresh, up and destroy converge on the account's current token", async () => {
  const per = accountPerDoor();
  let rotation = "r-1";
  const s = await stack({ stackName: "killed", program: accountAndPausedKey(per, () => rotation) });
  await s.up();
  for (const { account } of per) expect(account.keys.k.paused).toBe(true);

  // The rotations commit at once but answer late; the CLI is killed before the answers.
  rotation = "r-2";
  env.emu.addFault({ method: "POST", path: "/rotate-token/", delayAfterMs: 15_000 });
  const up = s.up().then(
    () => "finished",
    () => "killed",
  );
  await until(() => per.every(({ info, account }) => account.record.token !== info.token));
  expect(killOwnPulumi(/pulumi up .*--stack killed/)).toHaveLength(1);
  expect(await up).toBe("killed");
  env.emu.emulator.controls.clearFaults();

  await s.stack.cancel();
  await recoverPendingCreates(s.stack);
  await s.refresh();
  await s.up();
  for (const { door, info, account } of per)
    expect([door.name, await keyOutputs(s, door)]).toMatchObject([
      door.name,
      { managedBy: `account:${info.id}@${region}`, tokenFingerprint: tokenIdentity(account.record.token) },
    ]);
  await s.destroy();
  expect(per.map(({ door, account }) => [door.name, account.keys.k.paused])).toEqual(doors.map((d) => [d.name, false]));
});

test("4. a pin part the program drops is given back only while the stack's value is in place: an operator's re-pin stays; state of the token-hash identity is upgraded in place", async () => {
  const per = accountPerDoor();
  let pin: PinSpec = { parallelism: 2, rate: 10 };
  const s = await stack({
    program: async () =>
      declaring(() => {
        for (const { door, token } of per) door.declare("FlowControlKey", "k", { region, token, key: "k", pin });
      }),
  });
  await s.up();
  for (const { account } of per) expect(account.keys.k.pinned).toEqual({ parallelism: 2, rate: 10, period: 1 });

  // State as the version before wrote it: the identity is the token's hash. A refresh with
  // management credentials records the account in place, with no write and no replacement.
  const deployment = await s.stack.exportStack();
  for (const r of deployment.deployment.resources ?? []) {
    const mine = per.find(({ door }) => r.type === door.type("FlowControlKey"));
    if (!mine) continue;
    r.outputs.managedBy = tokenIdentity(mine.token);
    delete r.outputs.tokenFingerprint;
  }
  await s.stack.importStack(deployment);
  env.emu.resetLog();
  await s.refresh();
  for (const { door, info, token } of per)
    expect([door.name, await keyOutputs(s, door)]).toMatchObject([
      door.name,
      { managedBy: `account:${info.id}@${region}`, tokenFingerprint: tokenIdentity(token) },
    ]);
  expect(writeCalls()).toEqual([]);

  // An operator re-pins the rate during an incident; then the program drops `rate`.
  for (const { token } of per) await env.client.flowControl({ region, token }).pin("k", { rate: 50, period: 1 });
  pin = { parallelism: 2 };
  env.emu.resetLog();
  await s.up();
  expect(writeCalls()).toEqual([]);
  for (const { account } of per) expect(account.keys.k.pinned).toEqual({ parallelism: 2, rate: 50, period: 1 });

  await s.destroy();
  for (const { account } of per) expect(account.keys.k.pinned).toEqual({ rate: 50, period: 1 });
});

test("no management credentials: a revoked token fails refresh and destroy as one line naming the key and the way on; the new token with mgmt:movedFrom goes on", async () => {
  // One messaging token configures the stack: both doors' keys are in its account, by names of their own.
  const { info, token, account } = freshMessagingAccount(env);
  const keyOf = (door: ResourceDoor) => `k-${door.name}`;
  for (const door of doors) account.keys[keyOf(door)] = { waitListSize: 0, paused: false, rateResets: 0 };
  const s = await stack({
    mgmt: { username: undefined, password: undefined, messagingToken: token },
    program: async () =>
      declaring(() => {
        for (const door of doors) door.declare("FlowControlKey", "k", { region, key: keyOf(door), paused: true });
      }),
  });
  await s.up();
  const recorded = (await keyOutputs(s, doors[0])).managedBy as string;
  expect(recorded).toBe(tokenIdentity(token));
  expect((await keyOutputs(s, doors[1])).managedBy).toBe(recorded);
  await env.client.messagingAccounts.rotateToken(info.id);

  // A plain refresh and a destroy start both keys' steps at once (neither depends on the other),
  // so each door's error is shown.
  for (const run of [() => s.refresh(), () => s.destroy()]) {
    const message = await failure(run());
    for (const door of doors) {
      // The engine shows the error in its progress lines (cut to the terminal's width) and once whole under Diagnostics.
      const said = message
        .split("\n")
        .filter((l) => /revoked/.test(l) && l.includes(`"${keyOf(door)}"`))
        .map((l) => l.slice(l.indexOf("flow control key")));
      const [whole] = said.sort((a, b) => b.length - a.length);
      expect([door.name, said.length > 0 && said.every((l) => whole.startsWith(l))]).toEqual([door.name, true]);
      expect(whole).toMatch(
        new RegExp(
          `^flow control key "${keyOf(door)}" in eu-central-1: the token this stack recorded for it was refused \\(401\\): it was revoked, most likely by a rotation of the account's token`,
        ),
      );
      expect(whole).toMatch(/mgmt:messagingToken.*mgmt:movedFrom.*pulumi up.*mgmt:username and mgmt:password/);
    }
    expect(message).not.toMatch(/another account|\n\s+at /);
    expect(message).not.toContain(token);
  }
  for (const door of doors) expect(account.keys[keyOf(door)].paused).toBe(true);

  await s.stack.setConfig("mgmt:messagingToken", { value: account.record.token, secret: true });
  await s.stack.setConfig("mgmt:movedFrom", { value: recorded });
  await s.up();
  await s.destroy();
  expect(doors.map((d) => [d.name, account.keys[keyOf(d)].paused])).toEqual(doors.map((d) => [d.name, false]));
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
