/**
 * The YAML proof of the `mgmt` plugin (issue 37 item 5): a `Pulumi.yaml` program with every
 * resource, run by the real engine with Pulumi's YAML language host (scripts/ensure-yaml.sh) and
 * the plugin installed with its own command into a `plugins.providers` folder, against the
 * emulator. YAML reads the schema from the plugin; there is no SDK. One stack, in order: up, a
 * no-op preview that calls nothing, a change in place, bad input refused at preview before
 * anything is written, refresh after an out-of-band delete, destroy giving back what it found, and
 * no credential plain in the state.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { installPlugin } from "../../provider/plugin/install";
import { failure, testEnv, type TestEnv } from "../support/harness";
import { PLUGIN_MAIN } from "../support/pluginProcess";
import type { MgmtStack } from "../../provider/automation";

let env: TestEnv;
let stack: MgmtStack;
const project = mkdtempSync(path.join(tmpdir(), "mgmt-yaml-"));
const pluginDir = path.join(project, ".plugin");

interface Declared {
  indexType: string;
  messagingBudget: number;
  databaseBudget: number;
  paused: boolean;
}

/** The program: every resource of the package, as a YAML user writes them. */
function writeProgram(d: Declared): void {
  writeFileSync(
    path.join(project, "Pulumi.yaml"),
    `name: mgmt-yaml-proof
runtime: yaml
plugins:
  providers:
    - name: mgmt
      path: ${pluginDir}
config:
  accountId:
    type: string
  databaseId:
    type: string
resources:
  docs:
    type: mgmt:index:SearchIndex
    properties:
      name: docs
      region: eu-west-1
      type: ${d.indexType}
  account:
    type: mgmt:index:MessagingAccount
    properties:
      accountId: \${accountId}
      prodPack: true
  messagingBudget:
    type: mgmt:index:MessagingBudget
    properties:
      accountId: \${accountId}
      budget: ${d.messagingBudget}
  databaseBudget:
    type: mgmt:index:DatabaseBudget
    properties:
      databaseId: \${databaseId}
      budget: ${d.databaseBudget}
  key:
    type: mgmt:index:FlowControlKey
    properties:
      region: eu-central-1
      key: yaml-key
      paused: ${d.paused}
  queue:
    type: mgmt:index:MessagingQueue
    properties:
      region: eu-central-1
      queue: yaml-orders
      parallelism: 3
outputs:
  indexId: \${docs.id}
  readToken: \${docs.tokens.readOnlyToken}
`,
  );
}

const declared: Declared = { indexType: "payg", messagingBudget: 120, databaseBudget: 50, paused: true };
let accountId: string;
let databaseId: string;
let budgetsBefore: { messaging?: number; database?: number };

beforeAll(async () => {
  env = await testEnv();
  installPlugin(pluginDir, PLUGIN_MAIN); // the built plugin (this file runs from source)
  const account = (await env.client.messagingAccounts.list()).find(
    (a) => a.region === "eu-central-1" && a.type === "paid",
  )!;
  accountId = account.id;
  // Keys come into being when messages are published: this one has been.
  env.emu.emulator.data.accounts.find((a) => a.record.id === accountId)!.keys["yaml-key"] = {
    waitListSize: 4,
    paused: false,
    rateResets: 0,
  };
  databaseId = (await env.client.databases.list())[0].database_id;
  budgetsBefore = {
    messaging: account.budget,
    database: (await env.client.databases.list())[0].budget,
  };
  writeProgram(declared);
  stack = await env.stack({
    workDir: project,
    stackName: "yaml",
    mgmt: { messagingToken: account.token },
    config: { accountId: { value: accountId }, databaseId: { value: databaseId } },
  });
});
afterAll(async () => {
  await env.cleanup();
  rmSync(project, { recursive: true, force: true });
});

test("up creates every resource through the plugin; a no-op preview calls nothing", async () => {
  const up = await stack.up();
  expect(up.summary.resourceChanges).toEqual({ create: 7 });
  const indexId = String(up.outputs.indexId.value);
  expect((await env.client.searchIndexes.get(indexId)).type).toBe("payg");
  expect((await env.client.messagingAccounts.get(accountId)).budget).toBe(120);
  expect(up.outputs.readToken.secret).toBe(true);

  env.emu.resetLog();
  const preview = await stack.stack.preview();
  expect(preview.changeSummary).toEqual({ same: 7 });
  expect(env.emu.requests()).toEqual([]);
});

test("a change in place updates only what changed", async () => {
  writeProgram({ ...declared, messagingBudget: 200, paused: false });
  env.emu.resetLog();
  const up = await stack.up();
  expect(up.summary.resourceChanges).toEqual({ same: 5, update: 2 });
  expect((await env.client.messagingAccounts.get(accountId)).budget).toBe(200);
  expect(env.emu.requests().filter((r) => r.method !== "GET").length).toBeGreaterThan(0);
});

test("bad input is refused at preview in one line naming the field and the allowed values, before anything is sent", async () => {
  writeProgram({ ...declared, messagingBudget: 200, paused: false, indexType: "gold" });
  env.emu.resetLog();
  const message = await failure(stack.stack.preview());
  expect(message).toMatch(/type: .*free.*payg/);
  expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
  writeProgram({ ...declared, messagingBudget: 200, paused: false });
});

test("refresh after an out-of-band delete drops the index; destroy gives back what it found; no credential in state", async () => {
  const indexId = String((await stack.stack.outputs()).indexId.value);
  await env.client.searchIndexes.delete(indexId);
  const refresh = await stack.refresh();
  expect(refresh.summary.resourceChanges).toMatchObject({ delete: 1 });

  await stack.destroy();
  expect((await env.client.messagingAccounts.get(accountId)).budget).toBe(budgetsBefore.messaging);
  expect((await env.client.databases.list()).find((d) => d.database_id === databaseId)!.budget).toBe(
    budgetsBefore.database,
  );
  const state = stack
    .backendDirFiles()
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
  const alice = env.emu.users[0];
  for (const secret of [alice.password, ...alice.accounts.map((a) => a.token)]) expect(state).not.toContain(secret);
});
