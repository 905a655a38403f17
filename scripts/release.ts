/**
 * `npm run release`: the plugin as Pulumi installs providers, and the SDKs as their ecosystems
 * install packages, in one folder (`release/`, or `--out DIR`):
 * - `pulumi-resource-mgmt-v<version>-<os>-<arch>.tar.gz`, Pulumi's plugin archive name, holding
 *   `pulumi-resource-mgmt`: a Node.js single executable application (this Node.js with the plugin
 *   and every module it loads bundled into it), so the user's machine needs no Node.js;
 *   `pulumi plugin install resource mgmt <version> --file <archive>` installs it, and the engine
 *   downloads it from the schema's `pluginDownloadURL` when a program first needs it;
 * - `pulumi_mgmt-<version>-py3-none-any.whl` (pip), `pulumi-mgmt-mgmt-<version>.tgz` (npm), and
 *   `go/`, the Go module (`require` it at v<version> with a `replace` to this folder);
 * .NET's SDK is generated (sdk/dotnet) but not packed: no NuGet where this project is tested.
 *
 * `--plugin-download-url URL` (or MGMT_PLUGIN_DOWNLOAD_URL) releases for another address than the
 * schema's own: the SDKs are generated afresh from the schema with that URL (scripts/gen-sdk.sh),
 * so the committed sdk/ is left as it is. The archive is for the platform this runs on.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";
import { CONSTRUCT_MODULES } from "../provider/plugin/constructAdapter";
import { PLUGIN_EXECUTABLE } from "../provider/plugin/install";
import { PACKAGE } from "../provider/plugin/pulumiTypes";
import { PLUGIN_DOWNLOAD_URL, PLUGIN_VERSION } from "../provider/plugin/schema";
import { LICENSES_FILE, bundleOptions, bundledPackages, licensesText } from "./bundlePlugin";
import { SEA_MODULES, SEA_MODULES_KEY } from "./seaModules";

const ROOT = path.resolve(__dirname, "../..");
const DIST = path.join(ROOT, "dist");
/** The fuse Node.js checks for an injected application (Node.js's single executable docs). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
const SEA_BUNDLE = "sea-main.js";

/** Pulumi's names for this machine's platform, as in its plugin archive names. */
export function pulumiPlatform(platform: string = process.platform, arch: string = process.arch): string {
  const os = platform === "win32" ? "windows" : platform;
  const cpu = arch === "x64" ? "amd64" : arch;
  return `${os}-${cpu}`;
}

export const archiveName = (version: string = PLUGIN_VERSION, platform: string = pulumiPlatform()) =>
  `${PLUGIN_EXECUTABLE}-v${version}-${platform}.tar.gz`;

/**
 * Left out of the executable: the root SDK's function serialization (runtime/closure: TypeScript's
 * parser, npm's package tree), for a dynamic provider's code, which the plugin never serializes.
 * They are most of the bundle's size (9.4 of 12 MB). Loading their names gives a stub; using it
 * fails in one line.
 */
const ABSENT = /^(typescript|@npmcli\/arborist|normalize-package-data)$/;

const absent: Plugin = {
  name: "mgmt-sea-absent",
  setup(b) {
    b.onResolve({ filter: ABSENT }, (args) => ({ path: args.path, namespace: "mgmt-sea-absent" }));
    b.onLoad({ filter: /.*/, namespace: "mgmt-sea-absent" }, (args) => ({
      loader: "js",
      contents: `module.exports = new Proxy({}, { get(_, key) { if (key === "__esModule" || typeof key === "symbol") return undefined; throw new Error(${JSON.stringify(`mgmt plugin: ${args.path} is not in the plugin's executable (the SDK's function serialization, which the plugin does not use)`)}); } });`,
    }));
  },
};

/**
 * The single executable's bundle: the plugin bundle's options with nothing left outside (in an
 * executable, require() finds only Node's builtins), from seaEntry.ts. Its banner sends require()
 * to the table of modules named at run time (seaModules.ts) before Node's builtins.
 */
export async function writeSeaBundle(dir: string): Promise<string> {
  const missing = CONSTRUCT_MODULES.filter((m) => !(m in SEA_MODULES));
  if (missing.length > 0)
    throw new Error(`scripts/seaModules.ts lacks ${missing.join(", ")}, which Construct requires by name`);
  const options = bundleOptions(DIST);
  const file = path.join(dir, SEA_BUNDLE);
  const result = await build({
    ...options,
    entryPoints: [path.join(DIST, "scripts", "seaEntry.js")],
    outfile: file,
    plugins: [absent],
    write: true,
    banner: {
      js: `var require = ((builtin) => (id) => { const table = globalThis.${SEA_MODULES_KEY}; return table && Object.hasOwn(table, id) ? table[id]() : builtin(id); })(require);`,
    },
  });
  const packages = bundledPackages(result.metafile!, options.absWorkingDir!);
  writeFileSync(
    path.join(dir, LICENSES_FILE),
    `${PLUGIN_EXECUTABLE} is Node.js ${process.version} (MIT: https://github.com/nodejs/node/blob/${process.version}/LICENSE) with pulumi-mgmt's plugin and these packages bundled into it:\n\n` +
      licensesText(packages, PLUGIN_EXECUTABLE),
  );
  return file;
}

/** This Node.js with the bundle injected: `dir/pulumi-resource-mgmt`. */
export async function writeExecutable(dir: string, bundle: string): Promise<string> {
  const blob = path.join(dir, "sea-prep.blob");
  const config = path.join(dir, "sea-config.json");
  // The code cache spares each start compiling the bundle (start.ts does the same for the node-run plugin).
  writeFileSync(
    config,
    JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }),
  );
  quietly(process.execPath, ["--experimental-sea-config", config], "node could not write the single executable's blob");
  const exe = path.join(dir, PLUGIN_EXECUTABLE);
  copyFileSync(process.execPath, exe);
  chmodSync(exe, 0o755);
  // postject's CLI, in a process of its own: its ELF library warns on stderr about sections it
  // leaves alone (".note.100"), which says nothing to whoever releases.
  const postject = path.join(path.dirname(require.resolve("postject/package.json")), "dist", "cli.js");
  quietly(
    process.execPath,
    [postject, exe, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE],
    `postject could not inject the bundle into ${exe}`,
  );
  return exe;
}

/** Runs a step whose output says nothing unless it fails; then its output, and `failure` in one line. */
function quietly(command: string, args: string[], failure: string): void {
  try {
    execFileSync(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: Buffer; stderr?: Buffer };
    process.stderr.write(`${stdout ?? ""}${stderr ?? ""}`);
    throw new Error(`${failure} (its output is above)`);
  }
}

/** Runs a step, its errors on stderr; a missing program (python3, tar, npm) is one line naming it. */
function run(command: string, args: string[], cwd: string): void {
  try {
    execFileSync(command, args, { cwd, stdio: ["ignore", "ignore", "inherit"] });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw new Error(`${command} is not on PATH: the release runs \`${command} ${args.slice(0, 3).join(" ")}\``);
    throw new Error(`\`${path.basename(command)} ${args.slice(0, 3).join(" ")}\` failed (its errors are above)`);
  }
}

/** The Node.js SDK compiled to JavaScript and packed as npm installs it: `bin/` with the manifest, as Pulumi's providers publish. */
function packNodeSdk(sdk: string, out: string): string {
  run(process.execPath, [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], sdk);
  const manifest = JSON.parse(readFileSync(path.join(sdk, "package.json"), "utf8")) as Record<string, unknown>;
  delete manifest.scripts; // `tsc` has run: an install builds nothing
  delete manifest.devDependencies;
  writeFileSync(path.join(sdk, "bin", "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  if (existsSync(path.join(sdk, "README.md")))
    copyFileSync(path.join(sdk, "README.md"), path.join(sdk, "bin", "README.md"));
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], {
    cwd: path.join(sdk, "bin"),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop()!;
  return path.join(out, tarball);
}

export interface ReleaseOptions {
  out: string;
  pluginDownloadURL: string;
}

export interface Release {
  archive: string;
  wheel: string;
  npmTarball: string;
  goModule: string;
}

const step = (what: string) => process.stderr.write(`[release] ${what}\n`);

export async function release({ out, pluginDownloadURL }: ReleaseOptions): Promise<Release> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // Inside the repository, so that the Node.js SDK's compile resolves @pulumi/pulumi and @types/node from its node_modules.
  const cache = path.join(ROOT, "node_modules", ".cache", "pulumi-mgmt");
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(path.join(cache, "release-work-"));
  try {
    step(`the plugin as one executable (Node.js ${process.version} with the bundle injected)`);
    const stage = path.join(work, "plugin");
    mkdirSync(stage);
    await writeExecutable(stage, await writeSeaBundle(stage));
    copyFileSync(path.join(ROOT, "LICENSE"), path.join(stage, "LICENSE"));
    const archive = path.join(out, archiveName());
    run("tar", ["-czf", archive, PLUGIN_EXECUTABLE, LICENSES_FILE, "LICENSE"], stage);

    step(`the SDKs, with pluginDownloadURL ${pluginDownloadURL}`);
    const sdk = path.join(work, "sdk");
    run(
      "bash",
      [path.join(ROOT, "scripts", "gen-sdk.sh"), "--out", sdk, "--plugin-download-url", pluginDownloadURL],
      ROOT,
    );

    step("the Python wheel (pip wheel)");
    run("python3", ["-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", out, path.join(sdk, "python")], sdk);
    const wheel = readdirSync(out).find((f) => f.endsWith(".whl"));
    if (!wheel) throw new Error("pip wheel wrote no wheel");

    step("the Node.js SDK (tsc, npm pack)");
    const npmTarball = packNodeSdk(path.join(sdk, "nodejs"), out);

    const goModule = path.join(out, "go");
    cpSync(path.join(sdk, "go"), goModule, { recursive: true });
    return { archive, wheel: path.join(out, wheel), npmTarball, goModule };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const USAGE = `usage: npm run release -- [--out DIR] [--plugin-download-url URL]

Writes the ${PACKAGE} plugin's archive for this platform (${archiveName()}) and the SDK packages
into DIR (default: release/). URL (default: MGMT_PLUGIN_DOWNLOAD_URL, else ${PLUGIN_DOWNLOAD_URL})
is where the engine downloads the archive from. See docs/plugin.md.
`;

function parseArgs(argv: string[]): ReleaseOptions {
  let out = path.join(ROOT, "release");
  let pluginDownloadURL = process.env.MGMT_PLUGIN_DOWNLOAD_URL || PLUGIN_DOWNLOAD_URL;
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--help" || flag === "-h") {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    if ((flag === "--out" || flag === "--plugin-download-url") && value && !value.startsWith("--")) {
      if (flag === "--out") out = path.resolve(value);
      else pluginDownloadURL = value;
      i++;
    } else throw new Error(`unexpected argument "${argv.slice(i).join(" ")}" (${USAGE.split("\n")[0]})`);
  }
  if (!/^(https?|github|gitlab):\/\/\S+$/.test(pluginDownloadURL))
    throw new Error(`the plugin download URL "${pluginDownloadURL}" is not an http(s), github:// or gitlab:// address`);
  return { out, pluginDownloadURL };
}

if (require.main === module) {
  (async () => {
    const result = await release(parseArgs(process.argv.slice(2)));
    for (const file of [result.archive, result.wheel, result.npmTarball, result.goModule])
      process.stdout.write(`${path.relative(process.cwd(), file) || file}\n`);
  })().catch((err: unknown) => {
    process.stderr.write(`release: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
