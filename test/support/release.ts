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

/** A Python virtual environment in `dir` with `packages` installed by pip (pulumi from PyPI, pip's cache). */
export function pythonVenv(dir: string, packages: string[]): string {
  execFileSync("python3", ["-m", "venv", dir], { stdio: ["ignore", "ignore", "inherit"] });
  const python = path.join(dir, "bin", "python");
  execFileSync(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", ...packages], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  return python;
}
