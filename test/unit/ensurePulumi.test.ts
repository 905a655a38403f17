/**
 * scripts/ensure-pulumi.sh: a cached CLI is reused without building (in this checkout, at the
 * version of its Go workspace), and with neither a CLI nor Go it stops with one line of instructions.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../../provider/automation";
import { ensurePulumi } from "../../provider/automation/cli";
import { UserError } from "../../provider/userError";

const script = path.join(PACKAGE_ROOT, "scripts/ensure-pulumi.sh");
/** In this checkout, the version its Go workspace pins (scripts/gotools/go.mod), newer than the SDK's. */
const workspaceVersion = /github\.com\/pulumi\/pulumi\/pkg\/v3 v(\d+\.\d+\.\d+)/.exec(
  readFileSync(path.join(PACKAGE_ROOT, "scripts/gotools/go.mod"), "utf8"),
)![1];

test("a second run reuses the CLI it found or built, at the Go workspace's version", () => {
  const run = spawnSync("bash", [script], { encoding: "utf8" });
  expect(run.status).toBe(0);
  expect(run.stderr).toMatch(/using (cached pulumi v|pulumi .* from PATH)/);
  expect(run.stderr).not.toMatch(/compiling/);
  const dir = run.stdout.trim().split("\n").pop()!;
  const version = spawnSync(path.join(dir, "pulumi"), ["version"], { encoding: "utf8" });
  expect(version.stdout.trim()).toBe(`v${workspaceVersion}`);
});

test("with neither a CLI nor Go it fails with instructions", () => {
  const emptyCache = mkdtempSync(path.join(tmpdir(), "no-cli-"));
  try {
    const env = {
      PATH: path.dirname(process.execPath) + ":/usr/bin:/bin",
      HOME: emptyCache,
      PULUMI_MGMT_CACHE: emptyCache,
      PULUMI_MGMT_IGNORE_PATH_CLI: "1",
    };
    const run = spawnSync("bash", [script], { encoding: "utf8", env });
    expect(run.status).not.toBe(0);
    expect(run.stderr.trim()).toMatch(
      /^\[ensure-pulumi\] error: no Pulumi CLI found and no Go toolchain to build one: install the Pulumi CLI 3\.248 or newer on PATH .*, or Go 1\.25\+ to build pulumi v[\d.]+ from Go modules$/,
    );
    // Through the helpers (what a program's first mgmtStack meets): that reason as one line, nothing else.
    let thrown: unknown;
    try {
      ensurePulumi(env);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UserError);
    expect((thrown as Error).message).toMatch(
      /^no Pulumi CLI for pulumi-mgmt: no Pulumi CLI found and no Go toolchain to build one: install the Pulumi CLI 3\.248 or newer .*Go 1\.25\+/,
    );
    expect((thrown as Error).message).not.toMatch(/\n|Command failed|ensure-pulumi\.sh/);
  } finally {
    rmSync(emptyCache, { recursive: true, force: true });
  }
});
