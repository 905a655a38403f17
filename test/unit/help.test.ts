/**
 * Every command the package installs (package.json `bin`), and each `mgmt-fleet` subcommand,
 * answers `--help` with its usage on stdout and exit code 0: a new user's first try is never an
 * error. Run as a user runs them: the compiled files, in a folder with no settings.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { FLEET_COMMANDS } from "../../fleet/usage";
import { BINS } from "../support/bins";

const BIN = BINS;
const cwd = mkdtempSync(path.join(tmpdir(), "mgmt-help-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function help(command: string, ...args: string[]) {
  return spawnSync(process.execPath, [BIN[command], ...args], {
    cwd,
    encoding: "utf8",
    timeout: 30_000,
  });
}

const invocations: [string, string[]][] = [
  ...Object.keys(BIN).flatMap((command): [string, string[]][] => [
    [command, ["--help"]],
    [command, ["-h"]],
  ]),
  ...FLEET_COMMANDS.map((sub): [string, string[]] => ["mgmt-fleet", [sub, "--help"]]),
];

test.each(invocations)("%s %j prints its usage and exits 0", (command, args) => {
  const out = help(command, ...args);
  expect({ status: out.status, stderr: out.stderr }).toEqual({ status: 0, stderr: "" });
  const usage = args[0].startsWith("-") ? `usage: ${command}` : `usage: ${command} ${args[0]}`;
  expect(out.stdout.startsWith(usage)).toBe(true);
});

test("a subcommand's help names its own options", () => {
  expect(help("mgmt-fleet", "worker", "--help").stdout).toMatch(/^\s+--concurrency N\s/m);
  expect(help("mgmt-fleet", "submit", "--help").stdout).toMatch(/^\s+--wait\s/m);
  expect(help("mgmt-fleet", "--help").stdout).toMatch(/^\s+drift <tenants\.json>/m);
});
