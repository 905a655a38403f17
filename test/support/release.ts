/**
 * The release folder (`npm run release`, scripts/release.ts) the release tests install from: built
 * once per compiled package (the hash scripts/setup.sh leaves in dist/.built), into
 * node_modules/.cache/pulumi-mgmt/release-<hash>, so a test run pays for it once (about a minute on
 * 2 cores) and a run on unchanged sources not at all. It is released for TEST_DOWNLOAD_URL, a
 * host that does not exist: a test that lets the engine download redirects that address to its
 * own server (PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES), so a download proves the SDK carried it.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { archiveName } from "../../scripts/release";
import { pythonProofEnv } from "./frontDoors";
import { pulumiCliDir } from "./harness";

const ROOT = path.resolve(__dirname, "../..");
const CACHE = path.join(ROOT, "node_modules", ".cache", "pulumi-mgmt");

export const TEST_DOWNLOAD_URL = "https://mgmt-release.invalid/v0.1.0";

export interface ReleaseFolder {
  dir: string;
  archive: string;
  wheel: string;
  npmTarball: string;
  goModule: string;
}

export function releaseFolder(): ReleaseFolder {
  const built = readFileSync(path.join(ROOT, "dist", ".built"), "utf8").trim();
  const dir = path.join(CACHE, `release-${built.slice(0, 16)}`);
  if (!existsSync(path.join(dir, ".complete"))) {
    mkdirSync(CACHE, { recursive: true });
    for (const old of readdirSync(CACHE).filter((f) => f.startsWith("release-") && !f.startsWith("release-work-")))
      rmSync(path.join(CACHE, old), { recursive: true, force: true });
    const partial = `${dir}.partial`;
    execFileSync(
      process.execPath,
      [path.join(ROOT, "dist", "scripts", "release.js"), "--out", partial, "--plugin-download-url", TEST_DOWNLOAD_URL],
      { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] },
    );
    writeFileSync(path.join(partial, ".complete"), "");
    renameSync(partial, dir);
  }
  const files = readdirSync(dir);
  const one = (suffix: string) =>
    path.join(
      dir,
      files.find((f) => f.endsWith(suffix))!,
    );
  return {
    dir,
    archive: path.join(dir, archiveName()),
    wheel: one(".whl"),
    npmTarball: one(".tgz"),
    goModule: path.join(dir, "go"),
  };
}

/**
 * A folder for PATH holding only the Pulumi CLI's programs and Pulumi's YAML host (links), and no
 * `node`: what a machine without Node.js offers the engine.
 */
export function pathWithoutNode(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const cli = pulumiCliDir();
  const yamlStamp = path.join(CACHE, "yaml-dir");
  const yamlDir = existsSync(yamlStamp) ? readFileSync(yamlStamp, "utf8").trim() : cli;
  for (const name of readdirSync(cli)) symlinkSync(path.join(cli, name), path.join(dir, name));
  const yaml = path.join(yamlDir, "pulumi-language-yaml");
  if (!existsSync(path.join(dir, "pulumi-language-yaml")) && existsSync(yaml))
    symlinkSync(yaml, path.join(dir, "pulumi-language-yaml"));
  if (existsSync(path.join(dir, "node"))) throw new Error(`${cli} has a node: the PATH would not be without one`);
  return dir;
}

/**
 * A Python virtual environment in `dir` with `packages` installed by pip, on the environment
 * scripts/ensure-python.sh made for the Python proofs (sdk/python's dependencies from PyPI: pulumi,
 * grpcio, protobuf; npm test's setup makes it): a `.pth` file puts that environment's packages
 * behind the new one's own, so pip finds what the packages require installed and installs the
 * packages alone, into the new environment (offline); `pip check` then holds every requirement of theirs met.
 * A fresh environment cost pip a reinstall of every dependency from its cache.
 */
export function pythonVenv(dir: string, packages: string[]): string {
  const base = path.join(pythonProofEnv(), "bin", "python");
  execFileSync(base, ["-m", "venv", "--without-pip", dir], { stdio: ["ignore", "ignore", "inherit"] });
  const python = path.join(dir, "bin", "python");
  const purelib = (interpreter: string) =>
    execFileSync(interpreter, ["-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], {
      encoding: "utf8",
    }).trim();
  writeFileSync(path.join(purelib(python), "_mgmt_proof_env.pth"), `${purelib(base)}\n`);
  const pip = (...args: string[]) =>
    execFileSync(base, ["-m", "pip", "--python", python, "--disable-pip-version-check", ...args], {
      stdio: ["ignore", "ignore", "inherit"],
    });
  // The packages themselves even where the proofs' environment has one of that name and version
  // (pulumi_mgmt from sdk/python, released for another address): pip would call it installed.
  pip("install", "--quiet", "--no-index", "--no-deps", "--force-reinstall", ...packages);
  pip("check"); // and every requirement of theirs is met
  return python;
}
