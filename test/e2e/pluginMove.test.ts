/**
 * A stack of dynamic resources moves to the `mgmt` plugin (issue 37 item 9: the fleet's tenant
 * stacks, should they move): the same program through the plugin, each resource aliased to its
 * dynamic type, is no replacement and no API write, and the plugin manages what it took over.
 */
import { dynamicDoor, pluginDoor, type Kind } from "../support/resourceDoors";
import { declaring, exported, freshMessagingAccount, testEnv, type TestEnv } from "../support/harness";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

test("the tenant program's resources move from the dynamic resources to the plugin with no replacement and no API write", async () => {
  const { token, account } = freshMessagingAccount(env);
  const plugin = pluginDoor();
  let door = dynamicDoor;
  const aliased = (kind: Kind) => (door === plugin ? { aliases: [{ type: dynamicDoor.type(kind) }] } : {});
  // The fleet's tenant program (provider/fleet/tenant.ts): an auto-named index and a pinned key.
  const s = await env.stack({
    program: async () =>
      declaring(() => {
        door.declare("SearchIndex", "t1-search", { region: "eu-west-1", type: "free" }, aliased("SearchIndex"));
        door.declare(
          "FlowControlKey",
          "policy",
          { region: "eu-central-1", key: "t1", pin: { parallelism: 4 } },
          aliased("FlowControlKey"),
        );
      }),
    envVars: plugin.envVars,
    mgmt: { messagingToken: token },
  });
  await s.up();
  const [index] = await env.client.searchIndexes.list();
  const before = await s.stack.exportStack();

  door = plugin;
  env.emu.resetLog();
  const preview = await s.stack.preview();
  expect(preview.changeSummary).toEqual({ same: 3 });
  const up = await s.up();
  expect(up.summary.resourceChanges).toEqual({ same: 3 });
  expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);

  const [moved] = await exported(s, "mgmt:index:SearchIndex");
  expect(moved.id).toBe(index.id);
  expect(await exported(s, "mgmt:index:FlowControlKey")).toHaveLength(1);
  // A "same" step keeps the old outputs: the dynamic provider's `__provider` stays until the
  // plugin's first read, which leaves it out (properties.ts recorded), and writes nothing.
  await s.refresh();
  expect(JSON.stringify((await s.stack.exportStack()).deployment)).not.toContain("__provider");
  expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
  expect(account.keys.t1.pinned).toEqual({ parallelism: 4 });

  // The plugin now manages them: destroy deletes the index the stack made and unpins what it pinned.
  await s.destroy();
  expect(await env.client.searchIndexes.list()).toEqual([]);
  expect(account.keys.t1.pinned).toBeUndefined();
});
