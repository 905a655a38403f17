/**
 * Every example, end to end against the emulator: the Pulumi projects through the language host
 * exactly as `pulumi up` runs them, the Automation API script as a process. Afterwards neither
 * the state files nor the engine's output hold the password or any token in plain text.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PACKAGE_ROOT } from "../../provider/automation";
import { SETTINGS_KEYS } from "../../provider/config";
import { installPlugin, pluginCacheDir } from "../../provider/plugin/install";
import { goBuild } from "../support/goWorkspace";
import {
  backendContains,
  freshMessagingAccount,
  pulumiCliDir,
  testBackend,
  testEnv,
  type TestEnv,
} from "../support/harness";
import { PLUGIN_MAIN } from "../support/pluginProcess";
import type { MgmtStack } from "../../provider/automation";

const EXAMPLES = path.join(PACKAGE_ROOT, "examples");
const stackName = `ex${process.pid}`;
let env: TestEnv;
const engineOutput: string[] = [];
const stacks: MgmtStack[] = [];
const indexTokens: string[] = [];

beforeAll(async () => {
  env = await testEnv();
});
afterAll(async () => {
  await env.cleanup();
  for (const ex of ["search-index", "messaging-budget", "flow-control"])
    rmSync(path.join(EXAMPLES, ex, `Pulumi.${stackName}.yaml`), { force: true });
});

async function example(name: string, config: Record<string, string> = {}) {
  const s = await env.stack({
    workDir: path.join(EXAMPLES, name),
    stackName,
    config: Object.fromEntries(Object.entries(config).map(([k, v]) => [k, { value: v }])),
  });
  stacks.push(s);
  return s;
}

/**
 * After an example's first run through the engine: its program's later runs compile without
 * type-checking it again. Each run of a TypeScript program through the language host type-checks
 * it (ts-node, about 5 s of CPU here); the first run of each example is checked so, as a user's
 * `pulumi up` is, and setup's type-check (`tsc --noEmit`) covers examples/ too.
 */
function checkedOnce(s: MgmtStack): void {
  s.stack.workspace.envVars.PULUMI_NODEJS_TRANSPILE_ONLY = "true";
}

async function logged<T extends { stdout: string; stderr: string }>(p: Promise<T>): Promise<T> {
  const result = await p;
  engineOutput.push(result.stdout, result.stderr);
  return result;
}

test("search-index: creates, adopts, renames in place, destroys what it created and releases what it adopted", async () => {
  env.emu.emulator.reset();
  const legacy = await env.client.searchIndexes.create({ name: "legacy-catalog", region: "eu-west-1", type: "free" });
  const s = await example("search-index", { adoptIndex: "legacy-catalog" });
  const up = await logged(s.up());
  checkedOnce(s);
  expect(up.outputs.legacyId.value).toBe(legacy.id);
  expect(up.outputs.indexCount.value).toBe(3);
  expect(up.outputs.productsToken.secret).toBe(true);
  indexTokens.push(...(await env.client.searchIndexes.list()).flatMap((i) => [i.token, i.read_only_token!]));
  expect((await env.client.searchIndexes.list()).map((i) => i.name).sort()).toEqual([
    "legacy-catalog",
    expect.stringMatching(/^logs-[0-9a-f]{8}$/),
    "products",
  ]);
  expect((await logged(s.stack.preview())).changeSummary).toEqual({ same: 4 });

  const productsId = (await env.client.searchIndexes.list()).find((i) => i.name === "products")!.id;
  await s.stack.setConfig("productsName", { value: "products-v2" });
  expect((await logged(s.up())).summary.resourceChanges).toEqual({ same: 3, update: 1 });
  expect((await env.client.searchIndexes.get(productsId)).name).toBe("products-v2");

  await logged(s.destroy());
  expect((await env.client.searchIndexes.list()).map((i) => [i.id, i.name])).toEqual([[legacy.id, "legacy-catalog"]]);
});

test("messaging-budget: one budget per paid account; destroy restores the earlier budgets", async () => {
  env.emu.emulator.reset();
  const paid = (await env.client.messagingAccounts.list()).filter((a) => a.type === "paid");
  await env.client.messagingAccounts.setBudget(paid[0].id, 40);
  const s = await example("messaging-budget", { budget: "300" });
  const up = await logged(s.up());
  expect(up.outputs.budgets.value.map((b: { budget: number }) => b.budget)).toEqual([300, 300]);
  const budgets = async () =>
    (await env.client.messagingAccounts.list()).filter((a) => a.type === "paid").map((a) => a.budget);
  expect(await budgets()).toEqual([300, 300]);
  await logged(s.destroy());
  expect(await budgets()).toEqual([40, 0]);
});

test("flow-control: pins the quiet tenant, declares a queue, pauses the noisy tenant, resets on a new incident; destroy undoes all of it", async () => {
  env.emu.emulator.reset();
  const accountId = env.emu.users[0].accounts.find((a) => a.region === "eu-central-1")!.id;
  const account = env.emu.emulator.data.accounts.find((a) => a.record.id === accountId)!;
  account.keys["tenant-42"] = { waitListSize: 120, paused: false, rateResets: 0 };
  account.keys["tenant-7"] = { waitListSize: 3, paused: false, rateResets: 0 };
  account.queues.invoices = { paused: true, resumes: 0 };
  const s = await example("flow-control");
  const up = await logged(s.up());
  checkedOnce(s);
  expect(up.outputs.waitListSizes.value).toEqual({ "tenant-42": 120, "tenant-7": 3 });
  expect(up.outputs.quietTenantWaitList.value).toBe(3);
  expect(up.outputs.globalParallelismMax.value).toBe(1000);
  expect(account.keys["tenant-42"].paused).toBe(true);
  expect(account.keys["tenant-7"].pinned).toEqual({ parallelism: 5, rate: 100, period: 60 });
  expect(account.queues.jobs).toMatchObject({ parallelism: 2, paused: false });

  await s.stack.setConfig("incident", { value: "INC-1" });
  await s.stack.setConfig("maintenanceDone", { value: "2026-11-21" });
  const preview = await logged(s.stack.preview());
  expect(preview.changeSummary).toMatchObject({ update: 2 });
  await logged(s.up());
  expect(account.keys["tenant-7"].rateResets).toBe(2); // the pin's reset and the incident's
  expect(account.queues.invoices).toMatchObject({ paused: false, resumes: 1 });

  await logged(s.destroy());
  expect(account.keys["tenant-42"].paused).toBe(false);
  expect(account.keys["tenant-7"].pinned).toBeUndefined();
  expect(account.queues.jobs).toBeUndefined();
});

test("automation: creates from a list, previews and applies a change, refreshes and destroys", async () => {
  const { stdout } = await promisify(execFile)("node", ["-r", "ts-node/register/transpile-only", "index.ts"], {
    cwd: path.join(EXAMPLES, "automation"),
    env: { ...process.env, MGMT_BASE_URL: "", TS_NODE_PROJECT: "" },
  });
  engineOutput.push(stdout);
  expect(stdout.split("\n").slice(1, 6)).toEqual([
    'up: succeeded, {"create":4}; indexes: orders, customers, invoices',
    'preview of the change: {"create":1,"same":3,"update":1}',
    'up: succeeded, {"create":1,"same":3,"update":1}; indexes: orders-v2, customers, invoices, shipments',
    'refresh: succeeded, {"same":5}',
    'destroy: succeeded, {"delete":5}',
  ]);
});

test("go: the README's Go example creates its index through the plugin installed as the README says, previews no change, destroys it", async () => {
  env.emu.emulator.reset();
  const work = mkdtempSync(path.join(tmpdir(), "example-go-"));
  try {
    // The build command of its README, which names what it compiles (a first build is minutes long).
    const readme = readFileSync(path.join(EXAMPLES, "go/README.md"), "utf8");
    const build = /`go build ((?:-\S+ )*)-o (\S+) \. && \.\/\2 up`/.exec(readme);
    expect(build?.[1]).toContain("-v");
    const binary = path.join(work, build![2]);
    goBuild(path.join(EXAMPLES, "go"), [...build![1].trim().split(" "), "-o", binary, "."]);
    // A Pulumi home of its own, where `npx pulumi-resource-mgmt install` puts the plugin.
    const home = path.join(work, "pulumi-home");
    const backend = testBackend();
    const settings = { baseUrl: env.mgmt.baseUrl, username: env.mgmt.username, password: env.mgmt.password };
    const run = async (op: string, more: NodeJS.ProcessEnv = {}) => {
      const { stdout } = await promisify(execFile)(binary, [op], {
        cwd: work,
        env: {
          ...process.env,
          ...Object.fromEntries(
            Object.entries(settings).map(([k, v]) => [SETTINGS_KEYS[k as keyof typeof settings].env, String(v)]),
          ),
          PATH: `${pulumiCliDir()}${path.delimiter}${process.env.PATH ?? ""}`,
          PULUMI_HOME: home,
          PULUMI_BACKEND_URL: `file://${backend.backendDir}`,
          PULUMI_CONFIG_PASSPHRASE: backend.passphrase,
          PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
          ...more,
        },
      });
      engineOutput.push(stdout);
      return stdout;
    };
    // Not installed yet (downloads off, so the engine says only that none was found): the example's last line says how to install.
    const missing = await run("preview").then(
      () => undefined,
      (err: { stderr?: string }) => err.stderr ?? "",
    );
    expect(missing?.trim().split("\n").pop()).toBe(
      "the mgmt plugin is not installed: run `npx pulumi-resource-mgmt install` in a project that has pulumi-mgmt, then run this again",
    );
    installPlugin(pluginCacheDir({ PULUMI_HOME: home }), PLUGIN_MAIN);
    const up = await run("up");
    const [index] = await env.client.searchIndexes.list();
    expect(up).toContain(`endpoint: ${index.endpoint}`);
    expect(index).toMatchObject({ name: expect.stringMatching(/^catalog-/), region: "eu-west-1", type: "payg" });
    expect(up).toMatch(/token\s*: \[secret\]/);
    expect(await run("preview")).toMatch(/2 unchanged/);
    // A reason the CLI gives before any engine runs (a wrong passphrase) is shown too, above the last line.
    const wrong = await run("preview", { PULUMI_CONFIG_PASSPHRASE: "not-the-stack-s" }).then(
      () => undefined,
      (err: { stderr?: string }) => err.stderr ?? "",
    );
    expect(wrong).toMatch(/incorrect passphrase/);
    expect(wrong?.trim().split("\n").pop()).toBe("preview failed: the reason is above");
    await run("destroy");
    expect(await env.client.searchIndexes.list()).toEqual([]);
    const state = execFileSync("find", [backend.backendDir, "-type", "f"], { encoding: "utf8" }).trim().split("\n");
    const text = state.map((f) => readFileSync(f, "utf8")).join("\n");
    for (const secret of [String(env.mgmt.password), index.token, index.read_only_token!])
      expect(text.includes(secret)).toBe(false);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("yaml: the README's Pulumi.yaml, with the plugin installed as the README says, creates its index with a secret token, previews no change, destroys it", async () => {
  env.emu.emulator.reset();
  const work = mkdtempSync(path.join(tmpdir(), "readme-yaml-"));
  try {
    const section = readFileSync(path.join(PACKAGE_ROOT, "README.md"), "utf8").split("## Other languages")[1];
    const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBeDefined();
    writeFileSync(path.join(work, "Pulumi.yaml"), block!.replace(/^ {2}/gm, ""));
    // A Pulumi home of its own, where `npx pulumi-resource-mgmt install` puts the plugin.
    const home = path.join(work, "pulumi-home");
    installPlugin(pluginCacheDir({ PULUMI_HOME: home }), PLUGIN_MAIN);
    const s = await env.stack({ workDir: work, stackName: "dev", envVars: { PULUMI_HOME: home } });
    const up = await s.up();
    const [index] = await env.client.searchIndexes.list();
    expect(index).toMatchObject({ region: "eu-west-1", type: "payg" });
    expect(up.outputs.token).toEqual({ value: index.token, secret: true });
    expect(up.stdout.includes(index.token)).toBe(false);
    expect(backendContains(s, [String(env.mgmt.password), index.token, index.read_only_token!])).toEqual([]);
    expect((await s.stack.preview()).changeSummary).toEqual({ same: 2 });
    await s.destroy();
    expect(await env.client.searchIndexes.list()).toEqual([]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("yaml: getSearchIndex and getMessagingAccount answer an index's name and an account's id plain, getSearchIndexTokens and getMessagingAccountTokens their tokens secret", async () => {
  // Pulumi's YAML host makes a whole invoke result secret when any field of it is.
  env.emu.emulator.reset();
  const work = mkdtempSync(path.join(tmpdir(), "yaml-invoke-"));
  try {
    const existing = await env.client.searchIndexes.create({ name: "found", region: "eu-west-1", type: "free" });
    const account = (await env.client.messagingAccounts.list()).find(
      (a) => a.region === "eu-central-1" && a.type === "paid",
    )!;
    writeFileSync(
      path.join(work, "Pulumi.yaml"),
      [
        "name: yaml-invoke",
        "runtime: yaml",
        "variables:",
        "  found:",
        "    fn::invoke: { function: mgmt:index:getSearchIndex, arguments: { id: " + existing.id + " } }",
        "  tokens:",
        "    fn::invoke: { function: mgmt:index:getSearchIndexTokens, arguments: { id: " + existing.id + " } }",
        "  account:",
        "    fn::invoke: { function: mgmt:index:getMessagingAccount, arguments: { region: eu-central-1, type: paid } }",
        "  accountTokens:",
        "    fn::invoke: { function: mgmt:index:getMessagingAccountTokens, arguments: { region: eu-central-1, type: paid } }",
        "outputs:",
        "  accountId: ${account.id}",
        "  accountToken: ${accountTokens.token}",
        "  name: ${found.name}",
        "  endpoint: ${found.endpoint}",
        "  token: ${tokens.token}",
        "",
      ].join("\n"),
    );
    const home = path.join(work, "pulumi-home");
    installPlugin(pluginCacheDir({ PULUMI_HOME: home }), PLUGIN_MAIN);
    const s = await env.stack({ workDir: work, stackName: "dev", envVars: { PULUMI_HOME: home } });
    const up = await s.up();
    expect(up.outputs.name).toEqual({ value: "found", secret: false });
    expect(up.outputs.endpoint).toEqual({ value: existing.endpoint, secret: false });
    expect(up.outputs.token).toEqual({ value: existing.token, secret: true });
    expect(up.outputs.accountId).toEqual({ value: account.id, secret: false });
    expect(up.outputs.accountToken).toEqual({ value: account.token, secret: true });
    for (const token of [existing.token, account.token]) expect(up.stdout.includes(token)).toBe(false);
    expect(backendContains(s, [existing.token, account.token])).toEqual([]);
    await s.destroy();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("yaml-schedules: a URL group and a schedule that publishes to it, through the plugin: up creates both, a no-op preview calls nothing, a new cron changes the same schedule in place, destroy deletes both", async () => {
  const { token, account } = freshMessagingAccount(env);
  const work = mkdtempSync(path.join(tmpdir(), "yaml-schedules-"));
  try {
    const program = readFileSync(path.join(EXAMPLES, "yaml-schedules/Pulumi.yaml"), "utf8");
    writeFileSync(path.join(work, "Pulumi.yaml"), program);
    const home = path.join(work, "pulumi-home");
    installPlugin(pluginCacheDir({ PULUMI_HOME: home }), PLUGIN_MAIN);
    const s = await env.stack({
      workDir: work,
      stackName: "dev",
      envVars: { PULUMI_HOME: home },
      mgmt: { messagingToken: token },
    });
    const up = await logged(s.up());
    expect(account.topics["nightly-receivers"].endpoints.map((e) => e.url).sort()).toEqual([
      "https://billing.example.com/nightly",
      "https://reports.example.com/nightly",
    ]);
    const [id, ...others] = Object.keys(account.schedules);
    expect(others).toEqual([]);
    expect(up.outputs.scheduleId.value).toBe(id);
    expect(account.schedules[id]).toMatchObject({ destination: "nightly-receivers", paused: false });
    expect(account.schedules[id].cron).toMatch(/0 3 \* \* \*$/);

    env.emu.resetLog();
    expect((await logged(s.stack.preview())).changeSummary).toEqual({ same: 3 });
    expect(env.emu.requests()).toEqual([]);

    writeFileSync(path.join(work, "Pulumi.yaml"), program.replace('cron: "0 3 * * *"', 'cron: "30 4 * * *"'));
    expect((await logged(s.up())).summary.resourceChanges).toEqual({ same: 2, update: 1 });
    expect(Object.keys(account.schedules)).toEqual([id]);
    expect(account.schedules[id].cron).toMatch(/30 4 \* \* \*$/);

    await logged(s.destroy());
    expect(account.schedules).toEqual({});
    expect(account.topics["nightly-receivers"]).toBeUndefined();
    expect(backendContains(s, [token])).toEqual([]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("no state file and no engine output holds the password or a token in plain text", async () => {
  const secrets = [
    ...env.emu.users.flatMap((u) => [u.password, ...u.accounts.map((a) => a.token)]),
    ...env.emu.emulator.data.accounts.map((a) => a.record.read_only_token!),
    ...indexTokens,
  ];
  expect(indexTokens).toHaveLength(6);
  expect(engineOutput.length).toBeGreaterThan(10);
  for (const s of stacks) expect(backendContains(s, secrets)).toEqual([]);
  for (const out of engineOutput) for (const secret of secrets) expect(out.includes(secret)).toBe(false);
});
