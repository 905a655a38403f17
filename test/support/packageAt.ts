/**
 * pulumi-mgmt's npm tarball as an earlier commit packed it: what a user's project installed
 * before an upgrade. Built from `git archive` of that commit with this repository's
 * node_modules (the commit's own tsc, plugin bundle and `npm pack`, as its setup.sh made them),
 * once per commit: kept in node_modules/.cache/pulumi-mgmt/.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

export function tarballAt(commit: string): string {
  const cache = path.join(ROOT, "node_modules/.cache/pulumi-mgmt");
  const tarball = path.join(cache, `pulumi-mgmt-${commit.slice(0, 12)}.tgz`);
  if (existsSync(tarball)) return tarball;
  const dir = mkdtempSync(path.join(tmpdir(), "mgmt-package-at-"));
  try {
    execFileSync("bash", ["-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "_", ROOT, commit, dir], {
      stdio: "pipe",
    });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
    const run = (file: string, args: string[]) => execFileSync(file, args, { cwd: dir, stdio: "pipe" });
    // Checked when it was committed: only its output is needed here.
    run(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json", "--noCheck"]);
    run(process.execPath, ["dist/scripts/bundlePlugin.js"]);
    const packed = mkdtempSync(path.join(tmpdir(), "mgmt-package-at-out-"));
    run("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", packed]);
    mkdirSync(cache, { recursive: true });
    renameSync(path.join(packed, "pulumi-mgmt-0.1.0.tgz"), tarball);
    rmSync(packed, { recursive: true, force: true });
    return tarball;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
