/**
 * pulumi-mgmt-emulator and pulumi-mgmt-fleet name pulumi-mgmt as an optional peer (npm never looks
 * it up on the registry): installed without it, their commands say so in one line, with the way
 * on, instead of Node's "Cannot find module" stack trace.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
// The tarball `npm pack` makes of pulumi-mgmt is named after its version.
const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
let dir: string;

beforeAll(() => {
  // Each package's dist/ and package.json as its tarball ships them, where no pulumi-mgmt resolves.
  dir = mkdtempSync(path.join(tmpdir(), "mgmt-peer-missing-"));
  for (const pkg of ["emulator", "fleet"]) {
    cpSync(path.join(ROOT, pkg, "dist"), path.join(dir, pkg, "dist"), { recursive: true });
    cpSync(path.join(ROOT, pkg, "package.json"), path.join(dir, pkg, "package.json"));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each([
  ["mgmt-emulator", "emulator", "pulumi-mgmt-emulator"],
  ["mgmt-fleet", "fleet", "pulumi-mgmt-fleet"],
])("%s without pulumi-mgmt beside it: one line naming what to install, exit 1", (command, folder, pkg) => {
  const run = spawnSync(process.execPath, [path.join(dir, folder, "dist/cli.js"), "--help"], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: dir },
  });
  expect(run.status).toBe(1);
  expect(run.stdout).toBe("");
  expect(run.stderr).toBe(
    `${command}: pulumi-mgmt is not installed beside ${pkg}: install both in the project (npm install /path/to/pulumi-mgmt-${version}.tgz)\n`,
  );
});
