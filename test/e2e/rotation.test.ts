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
 * output, which the provider harness does not wire). Each door has an account of its own, or,
 * where one messaging token configures the stack, keys of its own; each check of a door's object
 * names its door.
 */
import type { PinSpec } from "../../provider";
import { recoverPendingCreates } from "../../provider/automation";
import { tokenIdentity } from "../../provider/resources/identity";
import type { MgmtStack } from "../../provider/automation";
import {
  backendContains,
  declaring,
  exported,
  failure,
  freshMessagingAccount,
  isSecret,
  messagingAccount,
  testEnv,
  type TestEnv,
} from "../support/harness";
import { commandLine, descendantsOf } from "../support/processes";
import {
  byDoor,
  byDoorAsync,
  doorsEnv,
  DOOR_PLAN,
  dynamicDoor,
  outputOf,
  pluginDoor,
  type Kind,
  type ResourceDoor,
} from "../support/resourceDoors";

const region = "eu-central-1";

let env: TestEnv;
let doors: ResourceDoor[];
beforeAll(async () => {
  env = await testEnv();
  doors = [dynamicDoor, pluginDoor()];
});
afterAll(() => env.cleanup());

/** POSTs since the last log reset, as "path?query". */
const writeCalls = () =>
  env.emu
    .requests()
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.path.replace(`/regional/${region}/v2`, "")}${r.query ? `?${r.query}` : ""}`);
/** A stack whose program declares both doors' resources. */
const stack = (o: Parameters<TestEnv["stack"]>[0]) =>
  env.stack({ ...o, envVars: { ...o.envVars, ...doorsEnv(doors) } });
const outputsOf = async (s: MgmtStack, door: ResourceDoor, kind: Kind) =>
  (await exported(s, door.type(kind)))[0].outputs!;

/** A fresh emulator and each door's account, holding an unpaused key "k". */
function accountPerDoor() {
  env.emu.emulator.reset();
  return doors.map((door) => {
    const { info, token, account } = messagingAccount(env, DOOR_PLAN[door.name]);
    account.keys.k = { waitListSize: 0, paused: false, rateResets: 0 };
    return { door, info, token, account };
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
  expect(byDoor(per, ({ account }) => account.keys.k.paused)).toEqual(byDoor(doors, () => true));
  expect(await byDoorAsync(per, async ({ door }) => (await outputsOf(s, door, "FlowControlKey")).managedBy)).toEqual(
    byDoor(per, ({ info }) => `account:${info.id}@${region}`),
  );

  // The security team rotates the tokens through the management API, as the console does.
  for (const { info } of per) await env.client.messagingAccounts.rotateToken(info.id);
  await s.refresh();
  const refreshed = await byDoorAsync(per, ({ door }) => outputsOf(s, door, "FlowControlKey"));
  expect(refreshed).toMatchObject(
    byDoor(per, ({ info, account }) => ({
      managedBy: `account:${info.id}@${region}`,
      tokenFingerprint: tokenIdentity(account.record.token),
      paused: true,
    })),
  );
  expect(refreshed.map(([name, outputs]) => [name, isSecret(outputs.token)])).toEqual(byDoor(doors, () => true));
  expect(byDoor(per, ({ account }) => backendContains(s, [account.record.token]))).toEqual(byDoor(doors, () => []));
  env.emu.resetLog();
  await s.up();
  expect(writeCalls()).toEqual([]);

  // Rotated again, and no refresh before destroy: the recorded token is revoked, the account's current one lifts the pause.
  for (const { info } of per) await env.client.messagingAccounts.rotateToken(info.id);
  await s.destroy();
  expect(byDoor(per, ({ account }) => account.keys.k.paused)).toEqual(byDoor(doors, () => false));
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
  expect(byDoor(per, ({ account }) => account.keys.k.paused)).toEqual(byDoor(doors, () => true));

  rotation = "a-2";
  await a.up();
  expect(byDoor(per, ({ info, account }) => account.record.token !== info.token)).toEqual(byDoor(doors, () => true));
  await b.refresh();
  expect(await byDoorAsync(per, ({ door }) => outputsOf(b, door, "FlowControlKey"))).toMatchObject(
    byDoor(per, ({ account }) => ({ tokenFingerprint: tokenIdentity(account.record.token) })),
  );
  await b.destroy();
  expect(byDoor(per, ({ account }) => account.keys.k.paused)).toEqual(byDoor(doors, () => false));
});

test("3. an up killed after the service committed a rotation: after cancel and recovery, refresh, up and destroy converge on the account's current token", async () => {
  const per = accountPerDoor();
  let rotation = "r-1";
  const s = await stack({ stackName: "killed", program: accountAndPausedKey(per, () => rotation) });
  await s.up();
  expect(byDoor(per, ({ account }) => account.keys.k.paused)).toEqual(byDoor(doors, () => true));

  // Both rotations commit at once but answer late; the CLI is killed before either answer.
  rotation = "r-2";
  env.emu.addFault({ method: "POST", path: "/rotate-token/", delayAfterMs: 15_000, times: per.length });
  const up = s.up().then(
    () => "finished",
    () => "killed",
  );
  await until(() => per.every(({ info, account }) => account.record.token !== info.token));
  expect(killOwnPulumi(/pulumi up .*--stack killed/)).toHaveLength(1);
  expect(await up).toBe("killed");
  env.emu.emulator.controls.clearFaults();
  // Each door's account was caught inside its rotation: its state still has the rotation before.
  expect(
    await byDoorAsync(per, async ({ door }) => (await outputsOf(s, door, "MessagingAccount")).tokenRotation),
  ).toEqual(byDoor(doors, () => "r-1"));

  await s.stack.cancel();
  await recoverPendingCreates(s.stack);
  await s.refresh();
  await s.up();
  expect(await byDoorAsync(per, ({ door }) => outputsOf(s, door, "FlowControlKey"))).toMatchObject(
    byDoor(per, ({ info, account }) => ({
      managedBy: `account:${info.id}@${region}`,
      tokenFingerprint: tokenIdentity(account.record.token),
    })),
  );
  await s.destroy();
  expect(byDoor(per, ({ account }) => account.keys.k.paused)).toEqual(byDoor(doors, () => false));
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
  expect(byDoor(per, ({ account }) => account.keys.k.pinned)).toEqual(
    byDoor(doors, () => ({ parallelism: 2, rate: 10, period: 1 })),
  );

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
  expect(await byDoorAsync(per, ({ door }) => outputsOf(s, door, "FlowControlKey"))).toMatchObject(
    byDoor(per, ({ info, token }) => ({
      managedBy: `account:${info.id}@${region}`,
      tokenFingerprint: tokenIdentity(token),
    })),
  );
  expect(writeCalls()).toEqual([]);

  // An operator re-pins the rate during an incident; then the program drops `rate`.
  for (const { token } of per) await env.client.flowControl({ region, token }).pin("k", { rate: 50, period: 1 });
  pin = { parallelism: 2 };
  env.emu.resetLog();
  await s.up();
  expect(writeCalls()).toEqual([]);
  expect(byDoor(per, ({ account }) => account.keys.k.pinned)).toEqual(
    byDoor(doors, () => ({ parallelism: 2, rate: 50, period: 1 })),
  );

  await s.destroy();
  expect(byDoor(per, ({ account }) => account.keys.k.pinned)).toEqual(byDoor(doors, () => ({ rate: 50, period: 1 })));
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
  const recorded = tokenIdentity(token);
  expect(await byDoorAsync(doors, async (door) => (await outputsOf(s, door, "FlowControlKey")).managedBy)).toEqual(
    byDoor(doors, () => recorded),
  );
  await env.client.messagingAccounts.rotateToken(info.id);

  // A plain refresh and a destroy start both keys' steps together (neither depends on the other),
  // and each step's answer takes a request to the service: each door's error is shown.
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
  expect(byDoor(doors, (door) => account.keys[keyOf(door)].paused)).toEqual(byDoor(doors, () => true));

  await s.stack.setConfig("mgmt:messagingToken", { value: account.record.token, secret: true });
  await s.stack.setConfig("mgmt:movedFrom", { value: recorded });
  await s.up();
  await s.destroy();
  expect(byDoor(doors, (door) => account.keys[keyOf(door)].paused)).toEqual(byDoor(doors, () => false));
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
