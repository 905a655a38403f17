/**
 * A postgres:// backend needs a Pulumi CLI that has one (3.176.0 on): with an older CLI the
 * stack helper, and so the fleet and the tenants driver, fail before any command but `version`
 * runs, in one line that names the CLI's version and the fix, instead of the CLI's login prompt.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../../provider/automation";
import { checkCliHasBackend, mgmtStack, POSTGRES_BACKEND_SINCE } from "../../provider/automation/stack";

/** The fleet's command as its users run it: the staged package (scripts/setup.sh). */
const FLEET_CLI = path.join(PACKAGE_ROOT, "node_modules/pulumi-mgmt-fleet/dist/cli.js");

const PG = "postgres://fleet:secret-pw@127.0.0.1:5432/pulumi";
/** The service a worker's tenants are provisioned on: never reached here. */
const SERVICE = {
  MGMT_BASE_URL: "http://127.0.0.1:1",
  MGMT_USERNAME: "alice",
  MGMT_PASSWORD: "alice-pw",
  MGMT_MESSAGING_URL: "http://127.0.0.1:1",
  MGMT_REGIONAL_MESSAGING_URL: "http://127.0.0.1:1",
  MGMT_MESSAGING_TOKEN: "token",
};

test.each([
  ["postgres://", "3.139.0", true, PG],
  ["postgresql://", "3.175.9", true, "postgresql://127.0.0.1/pulumi"],
  ["postgres://", POSTGRES_BACKEND_SINCE, false, PG],
  ["postgres://", "3.255.0", false, PG],
  ["file://", "3.139.0", false, "file:///tmp/state"],
])("a %s backend with CLI %s: refused %s", (_scheme, version, refused, url) => {
  process.env.PULUMI_MGMT_CLI_DIR = "/opt/pulumi/bin";
  const check = () => checkCliHasBackend(url, { version: { toString: () => version } });
  if (!refused) return expect(check).not.toThrow();
  expect(check).toThrow(
    `the Pulumi CLI /opt/pulumi/bin/pulumi is v${version}, which has no postgres:// backend (it came in 3.176.0)`,
  );
});

const saved = process.env.PULUMI_MGMT_CLI_DIR;
afterAll(() => {
  if (saved === undefined) delete process.env.PULUMI_MGMT_CLI_DIR;
  else process.env.PULUMI_MGMT_CLI_DIR = saved;
});

describe("mgmtStack with a CLI older than the postgres:// backend", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "mgmt-old-cli-"));
    mkdirSync(path.join(dir, "bin"));
    // Answers `version` as CLI 3.139.0 does, and logs every command it is given.
    writeFileSync(
      path.join(dir, "bin/pulumi"),
      `#!/bin/sh\necho "$*" >> "${dir}/commands"\n[ "$1" = version ] && echo v3.139.0\nexit 0\n`,
    );
    chmodSync(path.join(dir, "bin/pulumi"), 0o755);
    process.env.PULUMI_MGMT_CLI_DIR = path.join(dir, "bin");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("fails in one line before any command but `version`, and never shows the URL's password", async () => {
    const err = await mgmtStack({
      program: async () => undefined,
      backendUrl: PG,
      passphrase: "test-only",
      mgmt: { baseUrl: "http://127.0.0.1:1" },
    }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toBe(
      `the Pulumi CLI ${dir}/bin/pulumi is v3.139.0, which has no postgres:// backend (it came in 3.176.0): ` +
        "put a newer pulumi first on PATH, or set PULUMI_MGMT_CLI_DIR to the folder of one " +
        "(PULUMI_MGMT_CLI_VERSION=3.176.0 makes scripts/ensure-pulumi.sh build one)",
    );
    expect(err?.message).not.toContain("secret-pw");
    expect(readFileSync(path.join(dir, "commands"), "utf8").trim().split("\n")).toEqual(["version"]);
  });

  test("a fleet worker says so at start, in one line, before it reaches the database", async () => {
    rmSync(path.join(dir, "commands"), { force: true });
    const worker = spawnSync(process.execPath, [FLEET_CLI, "worker", "--database", PG], {
      cwd: PACKAGE_ROOT,
      env: {
        ...process.env,
        ...SERVICE,
        PULUMI_MGMT_CLI_DIR: path.join(dir, "bin"),
        PULUMI_CONFIG_PASSPHRASE: "test-only",
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect({ code: worker.status, out: worker.stdout + worker.stderr }).toEqual({
      code: 1,
      out: expect.stringMatching(
        new RegExp(
          `^mgmt-fleet: the Pulumi CLI ${dir}/bin/pulumi is v3\\.139\\.0, which has no postgres:// backend [^\\n]*\\n$`,
        ),
      ),
    });
    expect(readFileSync(path.join(dir, "commands"), "utf8").trim().split("\n")).toEqual(["version"]);
  });
});
