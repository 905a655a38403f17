/**
 * A user's stack outlives the package version that made it. A project installs pulumi-mgmt as
 * packed before the emulator and the fleet became packages of their own (the commit below), runs
 * `up`, then installs this build's tarball: the next `up` plans no create, replace or delete and
 * sends no write to the service. What state records by name stays valid: the dynamic providers'
 * module paths (`pulumi-mgmt/internal/providers/<name>`), the plugin's command and version.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PACKAGE_ROOT } from "../../provider/automation";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { tarballAt } from "../support/packageAt";

const run = promisify(execFile);
/** The last commit whose package carried the emulator and the fleet (main before the split). */
const BEFORE_SPLIT = "874df23c483bf006db60eabcae0c06b21af11673";
const TARBALL = path.join(PACKAGE_ROOT, "node_modules/.cache/pulumi-mgmt/pulumi-mgmt.tgz");

async function sh(cwd: string, file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    return (await run(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(" ")} failed in ${cwd}:\n${e.stdout ?? ""}${e.stderr || e.message}`);
  }
}

let emu: RunningEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startEmulator();
  dir = mkdtempSync(path.join(tmpdir(), "mgmt-upgrade-"));
});
afterAll(() => {
  emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

test(
  "a stack made by the package before the split plans no change and writes nothing after the upgrade",
  async () => {
    const before = tarballAt(BEFORE_SPLIT);
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "upgrade", version: "1.0.0", private: true }));
    writeFileSync(path.join(dir, "Pulumi.yaml"), "name: upgrade\nruntime: nodejs\n");
    writeFileSync(
      path.join(dir, "index.js"),
      `const { SearchIndex, MessagingControls } = require("pulumi-mgmt");
const index = new SearchIndex("idx", { name: "upgrade", region: "eu-west-1", type: "free" });
new MessagingControls("ops", { region: "eu-central-1", flowControlKeys: [{ key: "k", pin: { rate: 5 } }], queues: [{ name: "jobs", parallelism: 2 }] });
exports.endpoint = index.endpoint;
`,
    );
    const install = (tarball: string) =>
      sh(dir, "npm", ["install", "--no-audit", "--no-fund", "@pulumi/pulumi@3.248.0", tarball]);
    const manifest = () => JSON.parse(readFileSync(path.join(dir, "node_modules/pulumi-mgmt/package.json"), "utf8"));
    await install(before);
    const old = manifest();
    expect(old.bin["mgmt-fleet"]).toBeDefined(); // the package before the split

    const cliDir = readFileSync(path.join(PACKAGE_ROOT, "node_modules/.cache/pulumi-mgmt/cli-dir"), "utf8").trim();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: [cliDir, process.env.PATH].join(path.delimiter),
      PULUMI_HOME: path.join(dir, ".pulumi-home"),
      PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
      PULUMI_CONFIG_PASSPHRASE: "upgrade",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    };
    mkdirSync(path.join(dir, ".state"));
    const pulumi = (...args: string[]) => sh(dir, "pulumi", [...args, "--stack", "dev", "--non-interactive"], env);
    await sh(dir, "pulumi", ["stack", "init", "dev", "--non-interactive"], env);
    const alice = emu.users[0];
    const account = alice.accounts.find((a) => a.region === "eu-central-1" && a.type === "free")!;
    emu.emulator.data.accounts.find((a) => a.record.id === account.id)!.keys.k = {
      waitListSize: 0,
      paused: false,
      rateResets: 0,
    };
    for (const [key, value, secret] of [
      ["mgmt:baseUrl", emu.baseUrl, false],
      ["mgmt:messagingUrl", emu.messagingUrl, false],
      ["mgmt:regionalMessagingUrl", emu.regionalMessagingUrl, false],
      ["mgmt:username", alice.username, false],
      ["mgmt:password", alice.password, true],
      ["mgmt:messagingToken", account.token, true],
    ] as const)
      await pulumi("config", "set", key, value, ...(secret ? ["--secret"] : []));
    await pulumi("up", "--yes", "--skip-preview");
    expect(emu.emulator.data.indexes.filter((i) => i.record.name === "upgrade")).toHaveLength(1);
    const providers = (state: { deployment: { resources: { inputs?: { __provider?: string } }[] } }) =>
      state.deployment.resources
        .map((r) => r.inputs?.__provider)
        .filter(Boolean)
        .sort();
    const madeBefore = providers(JSON.parse(await pulumi("stack", "export", "--show-secrets")));
    expect(madeBefore.join()).toContain(`require("pulumi-mgmt/internal/providers/searchIndex")`);

    await install(TARBALL);
    const now = manifest();
    expect(now.bin["mgmt-fleet"]).toBeUndefined(); // this build's package
    // The plugin a YAML, Go or Python program's state names: the same command and version.
    expect(now.bin["pulumi-resource-mgmt"]).toBe(old.bin["pulumi-resource-mgmt"]);
    expect(now.version).toBe(old.version);

    emu.resetLog();
    // --expect-no-changes: the engine fails the update on any create, update, replace or delete.
    const up = await pulumi("up", "--yes", "--skip-preview", "--expect-no-changes");
    expect(up).not.toMatch(/\b(created|replaced|deleted|updated)\b/);
    expect(emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
    // Each module path state records is loaded from the new package, and recorded the same (in any order).
    expect(providers(JSON.parse(await pulumi("stack", "export", "--show-secrets")))).toEqual(madeBefore);

    await pulumi("destroy", "--yes", "--skip-preview");
    expect(emu.emulator.data.indexes.filter((i) => i.record.name === "upgrade")).toEqual([]);
  },
  20 * 60_000,
);
