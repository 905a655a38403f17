/**
 * The proofs from each language (issue 37 item 5, issue 64 item 1), one scenario through every
 * front door (test/support/frontDoors.ts: YAML, Go, Python), by the real engine against the
 * emulator, with the plugin installed by its own command and no download: up, with an index made
 * out of band taken by the `import` option; a no-op preview that calls nothing but the program's
 * own function, a change in place, bad input refused at preview before anything is written,
 * refresh after an out-of-band delete, destroy giving back what it found and leaving the imported
 * index, and no credential plain in the state.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { mgmtConfigMap } from "../../provider/automation";
import { installPlugin } from "../../provider/plugin/install";
import { failure, pulumiCliDir, testEnv, type TestEnv } from "../support/harness";
import { PLUGIN_MAIN } from "../support/pluginProcess";
import {
  PROOF_KEY,
  goDoor,
  pythonDoor,
  pythonProofEnv,
  yamlDoor,
  type Declared,
  type FrontDoor,
} from "../support/frontDoors";
import { releasedMessage } from "../../provider/resources/released";

const DOORS = {
  yaml: yamlDoor,
  go: goDoor,
  python: pythonDoor,
} satisfies Record<string, (env: TestEnv, dir: string, token: string) => FrontDoor | Promise<FrontDoor>>;

describe.each(Object.keys(DOORS) as (keyof typeof DOORS)[])("through %s", (language) => {
  let env: TestEnv;
  let door: FrontDoor;
  let dir: string;
  let declared: Declared;
  let accountId: string;
  let before: { messaging?: number; database?: number };
  let found: { id: string; token: string };

  beforeAll(async () => {
    env = await testEnv();
    dir = mkdtempSync(path.join(tmpdir(), `mgmt-proof-${language}-`));
    // The account the program's function finds: alice's paid one in eu-central-1.
    const account = (await env.client.messagingAccounts.list()).find(
      (a) => a.region === "eu-central-1" && a.type === "paid",
    )!;
    accountId = account.id;
    // Keys come into being when messages are published: this one has been.
    env.emu.emulator.data.accounts.find((a) => a.record.id === accountId)!.keys[PROOF_KEY] = {
      waitListSize: 4,
      paused: false,
      rateResets: 0,
    };
    const database = (await env.client.databases.list())[0];
    before = { messaging: account.budget, database: database.budget };
    const index = { name: "found", region: "eu-west-1", type: "free" } as const;
    found = await env.client.searchIndexes.create(index);
    declared = {
      indexType: "payg",
      messagingBudget: 120,
      databaseBudget: 50,
      paused: true,
      databaseId: database.database_id,
      found: { id: found.id, ...index },
    };
    door = await DOORS[language](env, dir, account.token);
    door.declare(declared);
  });
  afterAll(async () => {
    await env.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  test("up creates every resource through the plugin and imports the found index; a no-op preview calls nothing but the program's function", async () => {
    env.emu.resetLog();
    const up = await door.up();
    expect(up.changes).toEqual({ create: 7, import: 1 });
    // The import read the index and changed nothing of it.
    expect(env.emu.requests().filter((r) => r.path.includes(found.id) && r.method !== "GET")).toEqual([]);
    const indexId = String(up.outputs.indexId.value);
    expect((await env.client.searchIndexes.get(indexId)).type).toBe("payg");
    expect((await env.client.messagingAccounts.get(accountId)).budget).toBe(120);
    expect(up.outputs.tokens.secret).toBe(true);

    env.emu.resetLog();
    const preview = await door.preview();
    expect(preview.changes).toEqual({ same: 8 });
    expect(env.emu.requests().map((r) => r.route)).toEqual(["GET /v2/messaging/users"]);
  });

  test("a change in place updates only what changed", async () => {
    declared = { ...declared, messagingBudget: 200, paused: false };
    door.declare(declared);
    const up = await door.up();
    expect(up.changes).toEqual({ same: 6, update: 2 });
    expect((await env.client.messagingAccounts.get(accountId)).budget).toBe(200);
  });

  test("bad input is refused at preview in one line naming the field and the allowed values, before anything is sent", async () => {
    door.declare({ ...declared, indexType: "gold" });
    env.emu.resetLog();
    const message = await failure(door.preview());
    expect(message).toMatch(/type: .*free.*payg/);
    expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
    door.declare(declared);
  });

  test("refresh after an out-of-band delete drops the index; destroy gives back what it found and leaves the imported index; no credential in state", async () => {
    const indexId = String((await door.up()).outputs.indexId.value);
    await env.client.searchIndexes.delete(indexId);
    const refresh = await door.refresh();
    expect(refresh.changes).toMatchObject({ delete: 1 });

    const destroyed = await door.destroy();
    // The engine says "deleted" of every one; the run's output also says which were only released.
    for (const what of [`messaging account "${accountId}"`, `flow control key "${PROOF_KEY}"`])
      expect(destroyed.output).toContain(releasedMessage(what));
    expect(destroyed.output).not.toMatch(/search index "docs" \([^)]*\): released/);
    expect((await env.client.messagingAccounts.get(accountId)).budget).toBe(before.messaging);
    expect((await env.client.databases.list())[0].budget).toBe(before.database);
    expect(await env.client.searchIndexes.get(found.id)).toMatchObject({ name: "found", type: "free" });
    const state = door.stateText();
    const alice = env.emu.users[0];
    // Which credential leaked, never the credential itself (a test's output is output too).
    const leaked = [
      ["alice's password", alice.password],
      ...alice.accounts.map((a) => [`the token of account ${a.id}`, a.token]),
      ["the imported index's token", found.token],
    ].filter(([, secret]) => state.includes(secret));
    expect(leaked.map(([what]) => what)).toEqual([]);
  });
});

/**
 * A `runtime: python` project, as `pulumi new python` lays one out: `pulumi up` through the CLI
 * starts the Python language host (scripts/pylanghost, linked beside the CLI by
 * scripts/ensure-python.sh), which runs the project's `__main__.py` in the project's `venv/`.
 */
describe("a runtime: python project", () => {
  let env: TestEnv;
  let dir: string;

  beforeAll(async () => {
    env = await testEnv();
    dir = mkdtempSync(path.join(tmpdir(), "mgmt-python-project-"));
  });
  afterAll(async () => {
    await env.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  test("pulumi up runs __main__.py on the generated SDK through the language host; a no-op preview; pulumi import; destroy leaves the imported index", async () => {
    const project = path.join(dir, "project");
    mkdirSync(project);
    mkdirSync(path.join(dir, "state"));
    symlinkSync(pythonProofEnv(), path.join(project, "venv"));
    const pluginDir = path.join(dir, "plugin");
    installPlugin(pluginDir, PLUGIN_MAIN);
    writeFileSync(
      path.join(project, "Pulumi.yaml"),
      `name: mgmt-python-project\nruntime: python\nplugins:\n  providers:\n    - name: mgmt\n      path: ${pluginDir}\n`,
    );
    writeFileSync(
      path.join(project, "__main__.py"),
      [
        "import pulumi",
        "import pulumi_mgmt as mgmt",
        "",
        'catalog = mgmt.SearchIndex("catalog", region="eu-west-1", type="payg")',
        'pulumi.export("id", catalog.id)',
        'pulumi.export("token", catalog.tokens.token)',
        "",
      ].join("\n"),
    );
    const cli = pulumiCliDir();
    const pulumi = async (...args: string[]): Promise<string> => {
      try {
        const { stdout } = await promisify(execFile)(path.join(cli, "pulumi"), args, {
          cwd: project,
          maxBuffer: 16 * 1024 * 1024,
          env: {
            // No language host on PATH: the engine must find the one beside the CLI.
            PATH: [cli, path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter),
            HOME: dir,
            PULUMI_HOME: path.join(dir, "home"),
            PULUMI_BACKEND_URL: `file://${path.join(dir, "state")}`,
            PULUMI_CONFIG_PASSPHRASE: "python-project-test",
            PULUMI_SKIP_UPDATE_CHECK: "true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
          },
        });
        return stdout;
      } catch (err) {
        const e = err as Error & { stdout?: string; stderr?: string };
        throw new Error(`pulumi ${args[0]} failed:\n${e.stdout}\n${e.stderr}`);
      }
    };
    await pulumi("stack", "init", "dev");
    const settings = Object.entries(mgmtConfigMap(env.mgmt)).flatMap(([k, v]) => [
      v.secret ? "--secret" : "--plaintext",
      `${k}=${v.value}`,
    ]);
    await pulumi("config", "set-all", ...settings);

    await pulumi("up", "--yes");
    const outputs = JSON.parse(await pulumi("stack", "output", "--json")) as Record<string, string>;
    expect(outputs.token).toBe("[secret]");
    expect((await env.client.searchIndexes.get(outputs.id)).type).toBe("payg");

    env.emu.resetLog();
    await pulumi("preview", "--expect-no-changes");
    expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);

    // pulumi import takes the index as found, then asks the host for code, which it does not write: one line says what to do.
    const found = await env.client.searchIndexes.create({ name: "found", region: "eu-west-1", type: "free" });
    const message = await failure(
      pulumi("import", "--yes", "--protect=false", "mgmt:index:SearchIndex", "found", found.id),
    );
    expect(message).toMatch(
      /^error: scripts\/pylanghost does not write Python code: the import is done; run pulumi import with --generate-code=false/m,
    );

    await pulumi("destroy", "--yes");
    const left = (await env.client.searchIndexes.list()).map((i) => i.id);
    expect(left).not.toContain(outputs.id);
    expect(left).toContain(found.id);
  });
});
