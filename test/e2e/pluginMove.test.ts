/**
 * The fleet's tenant stacks move from the dynamic resources to the `mgmt` plugin (issue 37 item
 * 9): a stack written by the earlier tenant program (dynamic resources), run by the tenant program
 * of now (fleet/tenantResources.ts: the plugin, each resource aliased to its dynamic
 * type), is no replacement and no API write, and the plugin manages what it took over.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { FlowControlKey, SearchIndex } from "../../provider";
import type { Tenant } from "../../fleet/tenant";
import { tenantProgram, useTenantPlugin } from "../../fleet/tenantResources";
import { exported, freshMessagingAccount, testEnv, type TestEnv } from "../support/harness";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

/** The tenant program as the dynamic resources declared it, before the move. */
const dynamicTenantProgram = (t: Tenant) => async () => {
  const index = new SearchIndex(`${t.id}-search`, { region: t.searchRegion, type: t.plan });
  new FlowControlKey("policy", { region: t.messagingRegion, key: t.flowControlKey, pin: t.pin });
  return { indexName: index.name, indexId: index.id, endpoint: index.endpoint };
};

test("a tenant stack of the dynamic resources moves to the plugin with no replacement and no API write", async () => {
  const { token, account } = freshMessagingAccount(env);
  const tenant: Tenant = {
    id: "t1",
    plan: "free",
    searchRegion: "eu-west-1",
    messagingRegion: "eu-central-1",
    flowControlKey: "t1",
    pin: { parallelism: 4 },
  };
  let program = dynamicTenantProgram(tenant);
  const workDir = mkdtempSync(path.join(tmpdir(), "mgmt-move-"));
  const s = await env.stack({
    program: () => program(),
    workDir,
    mgmt: { messagingToken: token },
  });
  await useTenantPlugin(s.stack.workspace, workDir);
  const before = (await s.up()).outputs;
  const [index] = await env.client.searchIndexes.list();
  expect(JSON.stringify((await s.stack.exportStack()).deployment)).toContain("__provider");

  program = tenantProgram(tenant);
  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 3 });
  const up = await s.up();
  expect(up.summary.resourceChanges).toEqual({ same: 3 });
  expect(up.outputs).toEqual(before);
  expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
  const [moved] = await exported(s, "mgmt:index:SearchIndex");
  expect(moved.id).toBe(index.id);
  expect(await exported(s, "mgmt:index:FlowControlKey")).toHaveLength(1);
  expect(await exported(s, "pulumi-nodejs:dynamic/mgmt:SearchIndex")).toEqual([]);

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
  rmSync(workDir, { recursive: true, force: true });
});
