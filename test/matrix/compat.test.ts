/**
 * The compatibility matrix: each leg is a user's project, made in a temporary folder and
 * installed from the package's `npm pack` tarball (not this repository's tree), with its own
 * @pulumi/pulumi version, Node, package manager and module system. Each runs `pulumi up`, a no-op
 * `preview`, `refresh` and `destroy` through the Pulumi CLI built for that SDK version, against
 * the emulator. Each also asks the installed package whether the leg's SDK still has what it
 * relies on beyond the SDK's published API (`sdkAdapterProblems()`).
 *
 * `npm test` runs the legs in MGMT_MATRIX_LEGS (default: today, esm), and the adapter's check
 * alone for the other legs' SDK versions; `npm run test:matrix` runs every leg. A leg that cannot run fails with the reason; none is skipped silently.
 */
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PACKAGE_ROOT } from "../../provider/automation";
import { startEmulator, type RunningEmulator } from "../../emulator";

const run = promisify(execFile);

interface Leg {
  /** The @pulumi/pulumi version the project installs. */
  sdk: string;
  /**
   * The CLI version to build when it differs from `sdk`: the Go module proxy this machine reaches
   * refuses pulumi 3.260 and later ("This module version is not available"), so the newest SDK
   * runs under the newest CLI it serves. A CLI runs programs of any 3.x SDK.
   */
  cli?: string;
  /** An npm `node` package version to run the program with; the machine's Node when absent. */
  node?: string;
  manager: "npm" | "pnpm";
  /** The program: CommonJS or ES module JavaScript, or TypeScript in a project that lists its own `typescript` (as Pulumi's template does). */
  module: "commonjs" | "module" | "typescript";
  /** How `__provider` is serialized in this layout (provider/resources/dynamicDoor.ts). */
  form: "module" | "closure";
}

/**
 * The CLI this repository builds for itself (its Go workspace's Pulumi, scripts/gotools/go.mod),
 * which the legs on the repository's own SDK version run under instead of a second CLI build: a
 * CLI runs programs of any 3.x SDK not newer than itself.
 */
const WORKSPACE_CLI = /github\.com\/pulumi\/pulumi\/pkg\/v3 v(\d+\.\d+\.\d+)/.exec(
  readFileSync(path.join(PACKAGE_ROOT, "scripts/gotools/go.mod"), "utf8"),
)![1];

/** The oldest @pulumi/pulumi the peer range allows (package.json), and the newest 3.x measured. */
export const FLOOR_SDK = "3.139.0";
export const NEWEST_SDK = "3.270.0";
export const NEWEST_CLI = "3.259.0";

export const LEGS: Record<string, Leg> = {
  floor: { sdk: FLOOR_SDK, manager: "npm", module: "commonjs", form: "module" },
  // TypeScript, with the project's own `typescript` (the package's peer is optional: it installs
  // none; without one, Pulumi falls back to its bundled TypeScript 3.8, which cannot read the
  // package's declarations).
  today: { sdk: "3.248.0", cli: WORKSPACE_CLI, manager: "npm", module: "typescript", form: "module" },
  newest: { sdk: NEWEST_SDK, cli: NEWEST_CLI, node: "22", manager: "npm", module: "commonjs", form: "module" },
  esm: { sdk: "3.248.0", cli: WORKSPACE_CLI, manager: "npm", module: "module", form: "module" },
  // pnpm's real paths run through node_modules/.pnpm/: the thin closure is serialized instead.
  pnpm: { sdk: "3.248.0", cli: WORKSPACE_CLI, manager: "pnpm", module: "commonjs", form: "closure" },
};

const selected = (process.env.MGMT_MATRIX_LEGS ?? "today,esm").split(",").map((l) => l.trim());
const legs = selected.includes("all") ? Object.keys(LEGS) : selected;
for (const name of legs)
  if (!LEGS[name])
    throw new Error(`MGMT_MATRIX_LEGS: unknown leg "${name}" (legs: ${Object.keys(LEGS).join(", ")}, all)`);

const TARBALL = path.join(PACKAGE_ROOT, "node_modules/.cache/pulumi-mgmt/pulumi-mgmt.tgz");
const PNPM = "pnpm@9.15.9";

let emu: RunningEmulator;
beforeAll(async () => {
  if (!existsSync(TARBALL)) throw new Error(`${TARBALL} is missing: run 'npm run setup' (it packs the package)`);
  emu = await startEmulator();
});
afterAll(() => emu?.close());

const PROGRAM = {
  commonjs: `const { SearchIndex, MessagingControls } = require("pulumi-mgmt");
const index = new SearchIndex("idx", { name: "matrix-leg", region: "eu-west-1", type: "free" });
new MessagingControls("ops", { region: "eu-central-1", flowControlKeys: [{ key: "k", pin: { rate: 5 } }], queues: [{ name: "jobs", parallelism: 2 }] });
exports.indexId = index.id;
exports.endpoint = index.endpoint;
`,
  module: `import { SearchIndex, MessagingControls } from "pulumi-mgmt";
const index = new SearchIndex("idx", { name: "matrix-leg", region: "eu-west-1", type: "free" });
new MessagingControls("ops", { region: "eu-central-1", flowControlKeys: [{ key: "k", pin: { rate: 5 } }], queues: [{ name: "jobs", parallelism: 2 }] });
export const indexId = index.id;
export const endpoint = index.endpoint;
`,
  // The documented \`getMessagingAccountOutput(...).token\` (docs/resources.md): a type error under TypeScript 3.8.
  typescript: `import { SearchIndex, MessagingControls, getMessagingAccountOutput } from "pulumi-mgmt";
const index = new SearchIndex("idx", { name: "matrix-leg", region: "eu-west-1", type: "free" });
new MessagingControls("ops", { region: "eu-central-1", flowControlKeys: [{ key: "k", pin: { rate: 5 } }], queues: [{ name: "jobs", parallelism: 2 }] });
const account = getMessagingAccountOutput({ region: "eu-central-1", type: "free" });
export const indexId = index.id;
export const endpoint = index.endpoint;
export const tokenLength = account.token.apply((t: string) => t.length);
`,
};

/** Runs a command in the leg, failing with its output. */
async function sh(cwd: string, file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    const { stdout } = await run(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(" ")} failed in ${cwd}:\n${e.stderr || e.stdout || e.message}`);
  }
}

/** The user's project: package.json, Pulumi.yaml, the program, installed from the tarball. */
async function project(name: string, leg: Leg): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), `mgmt-matrix-${name}-`));
  const main = leg.module === "typescript" ? "index.ts" : "index.js";
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify(
      {
        name: `matrix-${name}`,
        version: "1.0.0",
        private: true,
        main,
        ...(leg.module === "module" ? { type: "module" } : {}),
      },
      null,
      2,
    ),
  );
  writeFileSync(path.join(dir, "Pulumi.yaml"), `name: matrix-${name}\nruntime: nodejs\n`);
  writeFileSync(path.join(dir, main), PROGRAM[leg.module]);
  const deps = [`@pulumi/pulumi@${leg.sdk}`, TARBALL, ...(leg.module === "typescript" ? ["typescript@^5"] : [])];
  if (leg.manager === "npm") await sh(dir, "npm", ["install", "--no-audit", "--no-fund", ...deps]);
  else await sh(dir, "npx", ["--yes", PNPM, "add", ...deps]);
  if (leg.node) {
    // Node from the npm registry (the `node` package), kept beside the project, not in it.
    mkdirSync(path.join(dir, ".node"));
    await sh(path.join(dir, ".node"), "npm", [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefix",
      ".",
      `node@${leg.node}`,
    ]);
  }
  return dir;
}

/** Every @pulumi/pulumi the project holds, as real paths of their package folders. */
function sdkCopies(dir: string): string[] {
  const found = new Set<string>();
  const walk = (d: string, depth: number) => {
    if (depth > 12) return;
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.name === "pulumi" && path.basename(d) === "@pulumi" && existsSync(path.join(p, "package.json")))
        found.add(realpathSync(p));
      // Real folders only: pnpm's symlinks point into its store, which is walked itself.
      if (entry.isDirectory()) walk(p, depth + 1);
    }
  };
  walk(path.join(dir, "node_modules"), 0);
  return [...found];
}

test.each(legs)(
  "leg %s: one SDK copy; up, a no-op preview, refresh and destroy through the engine",
  async (name) => {
    const leg = LEGS[name];
    const dir = await project(name, leg);
    try {
      // One SDK instance: what the program loads is what pulumi-mgmt loads.
      const programSdk = realpathSync(
        path.dirname(createRequire(path.join(dir, "index.js")).resolve("@pulumi/pulumi/package.json")),
      );
      const mgmtManifest = realpathSync(createRequire(path.join(dir, "index.js")).resolve("pulumi-mgmt/package.json"));
      const mgmtSdk = realpathSync(path.dirname(createRequire(mgmtManifest).resolve("@pulumi/pulumi/package.json")));
      expect(mgmtSdk).toBe(programSdk);
      expect(sdkCopies(dir)).toEqual([programSdk]);
      if (leg.manager === "npm") {
        const tree = JSON.parse(await sh(dir, "npm", ["ls", "@pulumi/pulumi", "--all", "--json"]));
        expect(tree.dependencies["@pulumi/pulumi"].version).toBe(leg.sdk);
        expect(
          JSON.stringify(tree)
            .match(/"version":"3\.\d+\.\d+"/g)
            ?.filter((v, i, all) => all.indexOf(v) === i),
        ).toEqual([`"version":"${leg.sdk}"`]);
      }

      // What pulumi-mgmt relies on beyond the SDK's published API is still there in this leg's SDK
      // (provider/automation/sdkAdapter.ts): asked of the package as the project installed it.
      const adapter = await sh(dir, process.execPath, [
        "-e",
        `require("pulumi-mgmt/automation").sdkAdapterProblems().then((p) => console.log(JSON.stringify(p)))`,
      ]);
      expect(JSON.parse(adapter.trim().split("\n").pop()!)).toEqual([]);

      const cliDir = (
        await sh(PACKAGE_ROOT, "bash", [path.join(PACKAGE_ROOT, "scripts/ensure-pulumi.sh")], {
          ...process.env,
          PULUMI_MGMT_SDK_DIR: programSdk,
          ...(leg.cli ? { PULUMI_MGMT_CLI_VERSION: leg.cli } : {}),
        })
      )
        .trim()
        .split("\n")
        .pop()!;
      const nodeBin = leg.node ? path.join(dir, ".node/node_modules/.bin") : undefined;
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PATH: [nodeBin, cliDir, process.env.PATH].filter(Boolean).join(path.delimiter),
        PULUMI_HOME: path.join(dir, ".pulumi-home"),
        PULUMI_BACKEND_URL: `file://${path.join(dir, ".state")}`,
        PULUMI_CONFIG_PASSPHRASE: "matrix-leg",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      };
      mkdirSync(path.join(dir, ".state"));
      if (leg.node) expect(await sh(dir, "node", ["--version"], env)).toMatch(new RegExp(`^v${leg.node}\\.`));
      const pulumi = (...args: string[]) => sh(dir, "pulumi", [...args, "--stack", "dev", "--non-interactive"], env);
      await sh(dir, "pulumi", ["stack", "init", "dev", "--non-interactive"], env);

      emu.emulator.reset();
      const alice = emu.users[0];
      const account = alice.accounts.find((a) => a.region === "eu-central-1" && a.type === "free")!;
      const data = emu.emulator.data.accounts.find((a) => a.record.id === account.id)!;
      data.keys.k = { waitListSize: 0, paused: false, rateResets: 0 };
      const config: [string, string, boolean][] = [
        ["mgmt:baseUrl", emu.baseUrl, false],
        ["mgmt:messagingUrl", emu.messagingUrl, false],
        ["mgmt:regionalMessagingUrl", emu.regionalMessagingUrl, false],
        ["mgmt:username", alice.username, false],
        ["mgmt:password", alice.password, true],
        ["mgmt:messagingToken", account.token, true],
      ];
      // One CLI for all of them (each CLI start costs about half a second of CPU).
      await pulumi(
        "config",
        "set-all",
        ...config.flatMap(([key, value, secret]) => [secret ? "--secret" : "--plaintext", `${key}=${value}`]),
      );

      if (leg.module !== "typescript") {
        // A JavaScript project gets no TypeScript from the package (its peer is optional).
        expect(existsSync(path.join(dir, "node_modules/typescript"))).toBe(false);
      } else {
        expect(
          Number(
            JSON.parse(readFileSync(path.join(dir, "node_modules/typescript/package.json"), "utf8")).version.split(
              ".",
            )[0],
          ),
        ).toBeGreaterThanOrEqual(5);
      }
      const up = await pulumi("up", "--yes", "--skip-preview");
      if (leg.module === "typescript") expect(up).toMatch(/tokenLength\s*: \[secret\]/);
      const indexes = emu.emulator.data.indexes.filter((i) => i.record.name === "matrix-leg");
      expect(indexes).toHaveLength(1);
      expect(data.keys.k.pinned).toEqual({ rate: 5, period: 1 });
      expect(data.queues.jobs).toMatchObject({ parallelism: 2 });
      const state = JSON.parse(await pulumi("stack", "export", "--show-secrets"));
      const provider = String(
        state.deployment.resources.find((r: { type: string }) => r.type.endsWith("mgmt:SearchIndex")).inputs.__provider,
      );
      if (leg.form === "module") expect(provider).toContain(`require("pulumi-mgmt/internal/providers/searchIndex")`);
      else
        expect(provider).toMatch(
          /require\(`pulumi-mgmt\/internal\/providers\/\$\{name\}`\)[\s\S]*name: "searchIndex"|name: "searchIndex"[\s\S]*require\(`pulumi-mgmt\/internal\/providers\/\$\{name\}`\)/,
        );
      expect(provider.length).toBeLessThan(leg.form === "module" ? 400 : 3000);

      emu.resetLog();
      await pulumi("preview", "--expect-no-changes");
      expect(emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
      await pulumi("refresh", "--yes", "--skip-preview");
      await pulumi("destroy", "--yes", "--skip-preview");
      expect(emu.emulator.data.indexes).toEqual([]);
      expect(data.keys.k.pinned).toBeUndefined();
      expect(data.queues.jobs).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  30 * 60_000,
);

/**
 * The SDK versions of the legs not run here: each installed with the package alone (no CLI, no
 * engine), so `npm test` learns when any SDK of the matrix moves what sdkAdapter.ts relies on.
 * Side by side: each is mostly an npm install's wait on the registry.
 */
const otherSdks = [...new Set(Object.values(LEGS).map((l) => l.sdk))].filter(
  (sdk) => !legs.some((name) => LEGS[name].sdk === sdk),
);
if (otherSdks.length > 0)
  test.concurrent.each(otherSdks)(
    "@pulumi/pulumi %s still has what the package relies on beyond the SDK's published API",
    async (sdk) => {
      const dir = mkdtempSync(path.join(tmpdir(), `mgmt-matrix-sdk-${sdk}-`));
      try {
        writeFileSync(
          path.join(dir, "package.json"),
          JSON.stringify({ name: "matrix-sdk", version: "1.0.0", private: true }),
        );
        await sh(dir, "npm", ["install", "--no-audit", "--no-fund", `@pulumi/pulumi@${sdk}`, TARBALL]);
        const adapter = await sh(dir, process.execPath, [
          "-e",
          `require("pulumi-mgmt/automation").sdkAdapterProblems().then((p) => console.log(JSON.stringify(p)))`,
        ]);
        expect(JSON.parse(adapter.trim().split("\n").pop()!)).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    10 * 60_000,
  );
