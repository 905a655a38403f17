/**
 * Issue 37 item 6, through the real CLI and the `mgmt` plugin: `pulumi import` of an index and a
 * budget made out of band, and the `import` resource option of a Node.js program that declares
 * the plugin's type tokens. An import records what it found: a later destroy releases the index
 * (as `adopt` does) and gives the budget back as found (docs/ownership.md, "Import"). Offline: the
 * plugin is reached through a `Pulumi.yaml` `plugins.providers` folder written by installPlugin,
 * with plugin acquisition disabled. Starts the CLI: run it under the engine lock.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { installPlugin } from "../../provider/plugin/install";
import { PLUGIN_MAIN } from "../support/pluginProcess";
import { failure, pulumiCliDir, testEnv, type TestEnv } from "../support/harness";
import { releasedMessage } from "../../provider/resources/released";

let env: TestEnv;
let dir: string;

beforeAll(async () => {
  env = await testEnv();
  dir = mkdtempSync(path.join(tmpdir(), "mgmt-import-"));
});
afterAll(async () => {
  await env?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI in the project folder; fails the test with the CLI's own output when it fails. */
async function pulumi(...args: string[]): Promise<string> {
  const cli = pulumiCliDir();
  try {
    const { stdout } = await promisify(execFile)(path.join(cli, "pulumi"), args, {
      cwd: path.join(dir, "project"),
      maxBuffer: 16 * 1024 * 1024,
      env: {
        PATH: [cli, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
        HOME: dir,
        PULUMI_HOME: path.join(dir, "home"),
        PULUMI_BACKEND_URL: `file://${path.join(dir, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: "import-test",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      },
    });
    return stdout;
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    throw new Error(`pulumi ${args.join(" ")} failed:\n${e.stdout}\n${e.stderr}`);
  }
}

interface Declared {
  type: string;
  name: string;
  props: Record<string, unknown>;
  /** The `import` resource option. */
  import?: string;
}

interface Export {
  deployment: {
    resources: { type: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[];
  };
}

/** The program: each declared resource as a CustomResource of the plugin's type token. */
function declare(resources: Declared[]): void {
  writeFileSync(path.join(dir, "project", "program.json"), JSON.stringify(resources));
}

/** Every file of the file backend (state, history, backups) as text. */
function backendText(root = path.join(dir, "state")): string {
  return readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(path.join(e.parentPath, e.name), "utf8"))
    .join("\n");
}

test("pulumi import and the import option take every resource as found; destroy releases, gives back and leaves alone as for adopt", async () => {
  const { client, emu } = env;
  const alice = emu.users[0];
  const pluginDir = path.join(dir, "plugin");
  installPlugin(pluginDir, PLUGIN_MAIN);
  const project = path.join(dir, "project");
  mkdirSync(project);
  mkdirSync(path.join(dir, "home"));
  mkdirSync(path.join(dir, "state"));
  // The program's `@pulumi/pulumi` is this package's own.
  symlinkSync(path.resolve(__dirname, "../../node_modules"), path.join(project, "node_modules"));
  writeFileSync(
    path.join(project, "Pulumi.yaml"),
    `name: mgmt-import\nruntime: nodejs\nplugins:\n  providers:\n    - name: mgmt\n      path: ${pluginDir}\n`,
  );
  writeFileSync(
    path.join(project, "index.js"),
    [
      'const pulumi = require("@pulumi/pulumi");',
      'for (const r of require("./program.json"))',
      "  new pulumi.CustomResource(`mgmt:index:${r.type}`, r.name, r.props, r.import ? { import: r.import } : {});",
      "",
    ].join("\n"),
  );
  declare([]);
  await pulumi("stack", "init", "dev");
  await pulumi("config", "set", "mgmt:baseUrl", emu.baseUrl);
  await pulumi("config", "set", "mgmt:username", alice.username);
  await pulumi("config", "set", "--secret", "mgmt:password", alice.password);
  const messaging = alice.accounts.find((a) => a.region === "eu-central-1")!;
  await pulumi("config", "set", "mgmt:regionalMessagingUrl", emu.regionalMessagingUrl);
  await pulumi("config", "set", "--secret", "mgmt:messagingToken", messaging.token);

  // Out of band: an index, and a budget on an account.
  const docs = await client.searchIndexes.create({ name: "docs", region: "eu-west-1", type: "free" });
  const logs = await client.searchIndexes.create({ name: "logs", region: "us-central1", type: "payg" });
  const accountId = alice.accounts[0].id;
  await client.messagingAccounts.setBudget(accountId, 50);
  // And in the emulator: an operator's incident pause on a key, a queue, the production pack on, a database budget.
  const live = emu.emulator.data.accounts.find((a) => a.record.id === messaging.id)!;
  live.keys["orders"] = { waitListSize: 2, paused: true, rateResets: 0 };
  live.queues["jobs"] = { paused: false, resumes: 0, parallelism: 3 };
  const hooks = [{ url: "https://a.example.com", name: "a" }, { url: "https://b.example.com" }];
  live.topics["hooks"] = { endpoints: hooks.map((e) => ({ ...e })), createdAt: 1, updatedAt: 1 };
  live.record.prod_pack_enabled = true;
  const database = emu.emulator.data.databases.find((d) => d.owner === alice.username)!.record;
  database.budget = 30;

  // The code to paste, by the language host's GenerateProgram (Pulumi's Node.js generator, the
  // plugin's schema read through the engine): the index declared as found, adopted by its id.
  const code = await pulumi("import", "--yes", "mgmt:index:SearchIndex", "docs", docs.id);
  expect(code).toContain('import * as mgmt from "@pulumi-mgmt/mgmt";');
  expect(code).toMatch(
    new RegExp(
      `const docs = new mgmt\\.SearchIndex\\("docs", \\{\\s*adopt: "${docs.id}",\\s*name: "docs",\\s*region: mgmt\\.SearchRegion\\.EuWest1,\\s*type: mgmt\\.SearchIndexType\\.Free,\\s*\\}, \\{\\s*protect: true,\\s*\\}\\);`,
    ),
  );
  await pulumi("import", "--yes", "--generate-code=false", "mgmt:index:MessagingBudget", "budget", accountId);
  for (const [type, name, id] of [
    ["DatabaseBudget", "db", database.database_id],
    ["MessagingAccount", "account", messaging.id],
    ["FlowControlKey", "orders", "eu-central-1/orders"],
    ["MessagingQueue", "jobs", "eu-central-1/jobs"],
    ["UrlGroup", "hooks", "eu-central-1/hooks"],
  ])
    await pulumi("import", "--yes", "--generate-code=false", `mgmt:index:${type}`, name, id);

  // What the import recorded as inputs (what code generation would write): the index adopted by its id.
  const resources = (JSON.parse(await pulumi("stack", "export")) as Export).deployment.resources;
  expect(resources.find((r) => r.type === "mgmt:index:SearchIndex")?.inputs).toEqual({
    name: "docs",
    region: "eu-west-1",
    type: "free",
    adopt: docs.id,
  });
  expect(resources.find((r) => r.type === "mgmt:index:MessagingBudget")?.inputs).toEqual({ accountId, budget: 50 });
  // A URL group's endpoints as found become its declared ones, none of them the stack's to remove.
  expect(resources.find((r) => r.type === "mgmt:index:UrlGroup")?.inputs).toEqual({
    region: "eu-central-1",
    group: "hooks",
    endpoints: hooks,
  });

  // A program declaring what Read answered has nothing to change.
  const declared: Declared[] = [
    { type: "SearchIndex", name: "docs", props: { name: "docs", region: "eu-west-1", type: "free", adopt: docs.id } },
    { type: "MessagingBudget", name: "budget", props: { accountId, budget: 50 } },
    { type: "DatabaseBudget", name: "db", props: { databaseId: database.database_id, budget: 30 } },
    { type: "MessagingAccount", name: "account", props: { accountId: messaging.id } },
    { type: "FlowControlKey", name: "orders", props: { region: "eu-central-1", key: "orders" } },
    { type: "MessagingQueue", name: "jobs", props: { region: "eu-central-1", queue: "jobs" } },
    { type: "UrlGroup", name: "hooks", props: { region: "eu-central-1", group: "hooks", endpoints: hooks } },
  ];
  declare(declared);
  emu.resetLog();
  await pulumi("preview", "--expect-no-changes");
  expect(emu.requests().filter((r) => r.method !== "GET")).toEqual([]);

  // The import option: the engine reads `logs` through the plugin; the program's inputs match, so nothing else happens.
  const logsProps = { name: "logs", region: "us-central1", type: "payg", adopt: logs.id };
  declare([...declared, { type: "SearchIndex", name: "logs", props: logsProps, import: logs.id }]);
  emu.resetLog();
  await pulumi("up", "--yes");
  expect(emu.requests().filter((r) => r.method !== "GET")).toEqual([]);

  // The stack now sets the budget (and keeps the import option's resource without the option).
  declare([
    ...declared.filter((r) => r.name !== "budget"),
    { type: "MessagingBudget", name: "budget", props: { accountId, budget: 70 } },
    { type: "SearchIndex", name: "logs", props: logsProps },
  ]);
  await pulumi("up", "--yes");
  expect((await client.messagingAccounts.get(accountId)).budget).toBe(70);

  // An adopt by name that renames the index and then fails to set its plan: the plugin answers
  // "created, but failed to initialise" with the index as it now is, so the engine keeps it in the
  // stack, and the next up sets the plan (no "not found" for the old name, no second index).
  const legacy = await client.searchIndexes.create({ name: "legacy", region: "eu-west-1", type: "free" });
  declare([
    ...declared.filter((r) => r.name !== "budget"),
    { type: "MessagingBudget", name: "budget", props: { accountId, budget: 70 } },
    { type: "SearchIndex", name: "logs", props: logsProps },
    {
      type: "SearchIndex",
      name: "legacy",
      props: { name: "renamed", region: "eu-west-1", type: "payg", adopt: "legacy" },
    },
  ]);
  emu.addFault({ method: "POST", path: "/setplan$", status: 400 });
  const partly = await failure(pulumi("up", "--yes"));
  expect(partly).toMatch(
    /search index "renamed": [^\n]*400: injected fault \(what was done is kept in the stack; the next `pulumi up` does the rest\)/,
  );
  expect(partly).not.toMatch(/\n\s+at /);
  const stateOf = async () => (JSON.parse(await pulumi("stack", "export")) as Export).deployment.resources;
  expect((await stateOf()).find((r) => r.id === legacy.id)?.outputs).toMatchObject({
    name: "renamed",
    type: "free",
    found: { name: "legacy", type: "free" },
  });
  emu.resetLog();
  await pulumi("up", "--yes");
  expect(emu.requests({ route: "POST /v2/search" })).toEqual([]);
  expect(await client.searchIndexes.get(legacy.id)).toMatchObject({ name: "renamed", type: "payg" });
  expect((await client.searchIndexes.list()).filter((i) => i.name === "renamed")).toHaveLength(1);
  expect((await stateOf()).filter((r) => r.id === legacy.id)).toHaveLength(1);

  const state = backendText();
  for (const plain of [docs.token, logs.token, legacy.token, alice.password, messaging.token])
    expect(state).not.toContain(plain);

  const destroyed = await pulumi("destroy", "--yes");
  // Both indexes were found, not created: released, not deleted, and the run's output says so
  // (the engine's word is "deleted"); the budget found is back.
  for (const i of [docs, logs]) expect(destroyed).toContain(releasedMessage(`search index "${i.name}" (${i.id})`));
  expect(destroyed).toContain(releasedMessage('URL group "hooks"'));
  const left = (await client.searchIndexes.list()).map((i) => i.id).sort();
  expect(left).toEqual([docs.id, logs.id, legacy.id].sort());
  // The index adopted partway is given back as it was found.
  expect(await client.searchIndexes.get(legacy.id)).toMatchObject({ name: "legacy", type: "free" });
  expect((await client.messagingAccounts.get(accountId)).budget).toBe(50);
  // Everything else was found and left as found: the operator's pause, the queue, the pack, the database budget.
  const at = { region: "eu-central-1", token: messaging.token };
  expect((await client.flowControl(at).get("orders")).isPaused).toBe(true);
  expect(await client.queues(at).get("jobs")).toMatchObject({ paused: false, parallelism: 3 });
  expect(live.topics.hooks.endpoints).toEqual(hooks);
  expect((await client.messagingAccounts.get(messaging.id)).prod_pack_enabled).toBe(true);
  expect((await client.databases.get(database.database_id)).budget).toBe(30);
}, 300_000);
