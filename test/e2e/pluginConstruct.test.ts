/**
 * The component `mgmt:index:MessagingControls` through the plugin's Construct (issue 37 item 1),
 * from a YAML program by the real engine against the emulator: its children are the plugin's own
 * FlowControlKey and MessagingQueue (no dynamic provider: a YAML project has no node_modules),
 * up pauses the keys and reports their outputs, a no-op preview calls nothing, a change in place
 * touches one child, bad input is refused at preview naming the field, destroy gives back the
 * keys' pause, and the token, passed as a secret, is nowhere plain in the state.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { failure, testEnv, type TestEnv } from "../support/harness";
import { yamlProgramDoor, type FrontDoor } from "../support/frontDoors";

const KEYS = { a: "ctl-key-a", b: "ctl-key-b", leader: "ctl-key-leader" };
const QUEUE = "ctl-orders";

interface Controls {
  token: string;
  pausedA: boolean;
  queueParallelism: number;
  /** The component's name in the program ("controls"), and the earlier name it was renamed from. */
  name?: string;
  renamedFrom?: string;
  /** A key outside the component, whose pause key b follows: a list entry's field from another resource. */
  leader?: boolean;
}

const componentUrn = (name: string) => `urn:pulumi:yaml::mgmt-yaml-construct::mgmt:index:MessagingControls::${name}`;

const program = (pluginDir: string, d: Controls) => `name: mgmt-yaml-construct
runtime: yaml
plugins:
  providers:
    - name: mgmt
      path: ${pluginDir}
resources:
  ${d.name ?? "controls"}:
    type: mgmt:index:MessagingControls${d.renamedFrom ? `\n    options:\n      aliases:\n        - ${componentUrn(d.renamedFrom)}` : ""}
    properties:
      region: eu-central-1
      token:
        fn::secret: ${d.token}
      flowControlKeys:
        - key: ${KEYS.a}
          paused: ${d.pausedA}
        - key: ${KEYS.b}
          paused: ${d.leader ? "${leader.paused}" : "true"}
      queues:
        - name: ${QUEUE}
          parallelism: ${d.queueParallelism}
${
  d.leader
    ? `  leader:
    type: mgmt:index:FlowControlKey
    properties:
      region: eu-central-1
      token:
        fn::secret: ${d.token}
      key: ${KEYS.leader}
      paused: true
`
    : ""
}outputs:
  waitListSizes: \${${d.name ?? "controls"}.waitListSizes}
  keyStates: \${${d.name ?? "controls"}.keyStates}
  queueStates: \${${d.name ?? "controls"}.queueStates}
`;

let env: TestEnv;
let door: FrontDoor<Controls>;
let dir: string;
let declared: Controls;
let keyOf: (key: string) => { paused: boolean };

beforeAll(async () => {
  env = await testEnv();
  dir = mkdtempSync(path.join(tmpdir(), "mgmt-construct-"));
  const account = (await env.client.messagingAccounts.list()).find(
    (a) => a.region === "eu-central-1" && a.type === "paid",
  )!;
  // Keys come into being when messages are published: these have been, and run unpaused.
  const keys = env.emu.emulator.data.accounts.find((a) => a.record.id === account.id)!.keys;
  keys[KEYS.a] = { waitListSize: 3, paused: false, rateResets: 0 };
  keys[KEYS.b] = { waitListSize: 5, paused: false, rateResets: 0 };
  keys[KEYS.leader] = { waitListSize: 0, paused: false, rateResets: 0 };
  keyOf = (key) => keys[key];
  declared = { token: account.token, pausedA: true, queueParallelism: 2 };
  door = await yamlProgramDoor(env, dir, account.token, program);
  door.declare(declared);
});
afterAll(async () => {
  await env.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test("up constructs the component with the plugin's own resources as children; a no-op preview calls nothing", async () => {
  const up = await door.up();
  expect(up.changes).toEqual({ create: 5 }); // the stack, the component, two keys, one queue
  expect(up.outputs.waitListSizes.value).toEqual({ [KEYS.a]: 3, [KEYS.b]: 5 });
  expect(up.outputs.keyStates.value).toEqual({
    [KEYS.a]: { paused: true, waitListSize: 3 },
    [KEYS.b]: { paused: true, waitListSize: 5 },
  });
  expect(up.outputs.queueStates.value).toMatchObject({ [QUEUE]: { parallelism: 2, paused: false } });
  expect([keyOf(KEYS.a).paused, keyOf(KEYS.b).paused]).toEqual([true, true]);
  const state = door.stateText();
  for (const child of [
    `mgmt:index:MessagingControls$mgmt:index:FlowControlKey::controls-key-${KEYS.a}`,
    `mgmt:index:MessagingControls$mgmt:index:FlowControlKey::controls-key-${KEYS.b}`,
    `mgmt:index:MessagingControls$mgmt:index:MessagingQueue::controls-queue-${QUEUE}`,
  ])
    expect(state).toContain(child);
  expect(state).not.toContain("pulumi-nodejs:dynamic:Resource");

  env.emu.resetLog();
  const preview = await door.preview();
  expect(preview.changes).toEqual({ same: 5 });
  expect(env.emu.requests().map((r) => r.route)).toEqual([]);
});

test("a change in place (unpausing one key) updates that child only", async () => {
  declared = { ...declared, pausedA: false };
  door.declare(declared);
  const up = await door.up();
  expect(up.changes).toEqual({ same: 4, update: 1 });
  expect([keyOf(KEYS.a).paused, keyOf(KEYS.b).paused]).toEqual([false, true]);
  expect(up.outputs.keyStates.value).toMatchObject({ [KEYS.a]: { paused: false }, [KEYS.b]: { paused: true } });
});

test("bad plain input is refused at preview in one line naming the field, before anything is sent", async () => {
  door.declare({ ...declared, queueParallelism: 0 });
  env.emu.resetLog();
  const message = await failure(door.preview());
  const line = message.split("\n").find((l) => l.includes('MessagingControls "controls"'));
  expect(line).toMatch(/MessagingControls "controls": queues\[0\]\.parallelism: /);
  expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
  door.declare(declared);
});

test("renamed in the program with an alias, the component and its children move: nothing replaced, nothing sent", async () => {
  declared = { ...declared, name: "messaging", renamedFrom: "controls" };
  door.declare(declared);
  env.emu.resetLog();
  const up = await door.up();
  expect(up.changes).toEqual({ same: 5 }); // moved under their new names: nothing created, deleted or replaced
  expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
  const state = door.stateText();
  expect(state).toContain(componentUrn("messaging"));
  expect(state).toContain(`mgmt:index:MessagingControls$mgmt:index:FlowControlKey::messaging-key-${KEYS.a}`);
  expect([keyOf(KEYS.a).paused, keyOf(KEYS.b).paused]).toEqual([false, true]);
});

test("a list entry's field taken from another resource's output (key b paused as a leader key is) constructs as a plain one does", async () => {
  declared = { ...declared, leader: true };
  door.declare(declared);
  const up = await door.up();
  expect(up.changes).toEqual({ create: 1, same: 5 });
  expect([keyOf(KEYS.leader).paused, keyOf(KEYS.b).paused]).toEqual([true, true]);
  expect(up.outputs.keyStates.value).toMatchObject({ [KEYS.b]: { paused: true } });
});

test("destroy gives back the pause the stack set; the token is nowhere plain in the state", async () => {
  await door.destroy();
  expect([keyOf(KEYS.a).paused, keyOf(KEYS.b).paused, keyOf(KEYS.leader).paused]).toEqual([false, false, false]);
  const state = door.stateText();
  expect(state.includes(declared.token) ? "the token is in the state" : "no token").toBe("no token");
});
