/**
 * Each package of the repository as a user gets it: packed (`npm pack`, the files a registry
 * would serve), installed into a fresh project, its command run and its main import loaded.
 * pulumi-mgmt alone brings no web server, job queue, database driver or TypeScript, and Yarn
 * classic installs it on Node 20 and runs a program's `pulumi preview` with it.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PACKAGE_ROOT } from "../../provider/automation";
import { startEmulator, type RunningEmulator } from "../../emulator";

const run = promisify(execFile);
const TARBALL = path.join(PACKAGE_ROOT, "node_modules/.cache/pulumi-mgmt/pulumi-mgmt.tgz");
const SDK = "@pulumi/pulumi@3.248.0";
const YARN = "yarn@1.22.22";

async function sh(cwd: string, file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    return (await run(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(" ")} failed in ${cwd}:\n${e.stdout ?? ""}${e.stderr || e.message}`);
  }
}

const dirs: string[] = [];
function fresh(name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `mgmt-packages-${name}-`));
  dirs.push(dir);
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: `packages-${name}`, version: "1.0.0", private: true }),
  );
  return dir;
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test(
  "pulumi-mgmt installs no web server, job queue, database driver or TypeScript into a program; pulumi-mgmt-emulator and pulumi-mgmt-fleet, packed and installed beside it: their commands run, their imports load",
  async () => {
    // pulumi-mgmt alone first, then the emulator and the fleet into the same project: one install
    // of the SDK's dependencies for both.
    const dir = fresh("installed");
    await sh(dir, "npm", ["install", "--no-audit", "--no-fund", SDK, TARBALL]);
    const present = ["fastify", "light-my-request", "pino", "graphile-worker", "pg", "typescript"].filter((name) =>
      existsSync(path.join(dir, "node_modules", name)),
    );
    expect(present).toEqual([]);
    const alone = await sh(dir, process.execPath, [
      "-e",
      `console.log(typeof require("pulumi-mgmt").SearchIndex, typeof require("pulumi-mgmt/automation").mgmtStack)`,
    ]);
    expect(alone.trim()).toBe("function function");

    const out = fresh("packs");
    const packs = JSON.parse(
      await sh(PACKAGE_ROOT, "npm", [
        "pack",
        "-w",
        "emulator",
        "-w",
        "fleet",
        "--json",
        "--ignore-scripts",
        "--pack-destination",
        out,
      ]),
    ) as { name: string; version: string; filename: string; files: { path: string }[] }[];
    const root = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8"));
    expect(packs.map((p) => [p.name, p.version])).toEqual([
      ["pulumi-mgmt-emulator", root.version],
      ["pulumi-mgmt-fleet", root.version],
    ]);
    for (const p of packs) {
      const files = p.files.map((f) => f.path);
      // Compiled code with its types, the manifest and the license: no sources or source maps.
      expect(files.filter((f) => !/^(package\.json|LICENSE|dist\/.+\.(js|d\.ts))$/.test(f))).toEqual([]);
      expect(files).toContain("LICENSE");
    }

    await sh(dir, "npm", ["install", "--no-audit", "--no-fund", ...packs.map((p) => path.join(out, p.filename))]);
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      "@pulumi/pulumi",
      "pulumi-mgmt",
      "pulumi-mgmt-emulator",
      "pulumi-mgmt-fleet",
    ]);
    const bin = (name: string) => path.join(dir, "node_modules/.bin", name);
    expect(await sh(dir, bin("mgmt-emulator"), ["--help"])).toMatch(/^usage: mgmt-emulator /);
    expect(await sh(dir, bin("mgmt-fleet"), ["--help"])).toMatch(/^usage: mgmt-fleet /);
    const loaded = await sh(dir, process.execPath, [
      "-e",
      `const { startEmulator } = require("pulumi-mgmt-emulator");
       const fleet = require("pulumi-mgmt-fleet");
       startEmulator({ port: 0 }).then(async (e) => {
         const r = await fetch(e.baseUrl + "/v2/search", { headers: { authorization: "Basic " + Buffer.from(e.users[0].username + ":" + e.users[0].password).toString("base64") } });
         console.log(JSON.stringify({ status: r.status, converge: typeof fleet.converge, worker: typeof fleet.startWorker }));
         await e.close();
       });`,
    ]);
    expect(JSON.parse(loaded.trim().split("\n").pop()!)).toEqual({
      status: 200,
      converge: "function",
      worker: "function",
    });
  },
  10 * 60_000,
);

describe("Yarn classic on Node 20", () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator();
  });
  afterAll(() => emu?.close());

  test(
    "installs pulumi-mgmt, and pulumi preview runs a program with it",
    async () => {
      expect(process.version).toMatch(/^v20\./);
      const dir = fresh("yarn");
      await sh(dir, "npx", ["--yes", YARN, "add", "--non-interactive", "--no-progress", SDK, `file:${TARBALL}`]);
      writeFileSync(path.join(dir, "Pulumi.yaml"), "name: yarn-classic\nruntime: nodejs\n");
      writeFileSync(
        path.join(dir, "index.js"),
        `const { SearchIndex } = require("pulumi-mgmt");\nexports.endpoint = new SearchIndex("idx", { name: "yarn-classic", region: "eu-west-1", type: "free" }).endpoint;\n`,
      );
      const cliDir = readFileSync(path.join(PACKAGE_ROOT, "node_modules/.cache/pulumi-mgmt/cli-dir"), "utf8").trim();
      mkdirSync(path.join(dir, ".state"));
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PATH: [cliDir, process.env.PATH].join(path.delimiter),
        PULUMI_HOME: path.join(dir, ".pulumi-home"),
        PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
        PULUMI_CONFIG_PASSPHRASE: "yarn-classic",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        MGMT_BASE_URL: emu.baseUrl,
        MGMT_USERNAME: emu.users[0].username,
        MGMT_PASSWORD: emu.users[0].password,
      };
      await sh(dir, "pulumi", ["stack", "init", "dev", "--non-interactive"], env);
      const preview = await sh(dir, "pulumi", ["preview", "--stack", "dev", "--non-interactive"], env);
      expect(preview).toMatch(/\+\s+.*mgmt:SearchIndex\s+idx\s+create/);
      expect(emu.emulator.data.indexes.filter((i) => i.record.name === "yarn-classic")).toEqual([]);
    },
    10 * 60_000,
  );
});
