/**
 * A command line the package's commands cannot run gets one line naming the option or argument
 * and where the options are listed, and exit status 2 (provider/cli/commandLine.ts): never node's
 * three-line parseArgs text, never an argument silently ignored.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseCommandLine, UsageError } from "../../provider/cli/commandLine";
import { BINS, ROOT } from "../support/bins";
import { FLEET_COMMANDS, fleetCommandLine } from "../../fleet/usage";

const OPTIONS = {
  "lock-wait": { type: "string" },
  wait: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function refusal(args: string[], maxPositionals?: number): string {
  try {
    parseCommandLine({ args, allowPositionals: true, options: OPTIONS }, { help: "cmd --help", maxPositionals });
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`accepted: ${args.join(" ")}`);
}

test.each([
  [["--bogus"], "unknown option --bogus; cmd --help lists what it takes"],
  [
    ["--lock-wait", "-1"],
    '--lock-wait: a value that starts with "-" is written --lock-wait=VALUE; cmd --help lists what it takes',
  ],
  [["--lock-wait"], "--lock-wait: needs a value; cmd --help lists what it takes"],
  [["--wait=yes"], "--wait: takes no value; cmd --help lists what it takes"],
  // node names an option with a short form as '-h, --help'.
  [["--help=1"], "--help: takes no value; cmd --help lists what it takes"],
])("%j is refused in one line naming the option", (args, line) => {
  expect(refusal(args)).toBe(line);
});

test("more positional arguments than the command takes are refused, naming the first extra one", () => {
  expect(refusal(["a.json", "b.json"], 1)).toBe('unexpected argument "b.json"; cmd --help lists what it takes');
  expect(refusal(["extra"], 0)).toBe('unexpected argument "extra"; cmd --help lists what it takes');
  // A command that takes no positional argument at all: node's own refusal, said the same way.
  expect(() => parseCommandLine({ args: ["extra"], options: OPTIONS }, { help: "cmd --help" })).toThrow(
    /^unexpected argument "extra"; cmd --help lists what it takes$/,
  );
  const ok = parseCommandLine(
    { args: ["--lock-wait=-1", "a.json"], allowPositionals: true, options: OPTIONS },
    { help: "cmd --help", maxPositionals: 1 },
  );
  expect({ values: { ...ok.values }, positionals: ok.positionals }).toEqual({
    values: { "lock-wait": "-1" },
    positionals: ["a.json"],
  });
});

describe("mgmt-fleet, as a user runs it (the compiled file, no settings)", () => {
  const cwd = mkdtempSync(path.join(tmpdir(), "mgmt-cmdline-"));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(MGMT_|PULUMI_)/.test(k)),
  ) as NodeJS.ProcessEnv;
  const fleet = (...args: string[]) =>
    spawnSync(process.execPath, [BINS["mgmt-fleet"], ...args], {
      cwd,
      env,
      encoding: "utf8",
      timeout: 30_000,
    });

  test.each([
    [["status", "extra"], 'mgmt-fleet: unexpected argument "extra"; mgmt-fleet status --help lists what it takes'],
    [
      ["worker", "--lock-wait", "-1"],
      'mgmt-fleet: --lock-wait: a value that starts with "-" is written --lock-wait=VALUE; mgmt-fleet worker --help lists what it takes',
    ],
    [["status", "--bogus"], "mgmt-fleet: unknown option --bogus; mgmt-fleet status --help lists what it takes"],
    // Each command takes only the options its --help lists: a worker's option is not ignored by status.
    [
      ["status", "--lock-wait=5"],
      "mgmt-fleet: unknown option --lock-wait; mgmt-fleet status --help lists what it takes",
    ],
    [["worker", "--wait"], "mgmt-fleet: unknown option --wait; mgmt-fleet worker --help lists what it takes"],
    [
      ["submit", "x.json", "--max-attempts=0"],
      'mgmt-fleet: --max-attempts: must be a whole number from 1 to 25, got "0"',
    ],
  ])("%j: one line, exit 2", (args, line) => {
    const out = fleet(...args);
    expect({ status: out.status, stderr: out.stderr, stdout: out.stdout }).toEqual({
      status: 2,
      stderr: `${line}\n`,
      stdout: "",
    });
  });

  test("a worker with neither the service nor the database is told both at once", () => {
    const out = fleet("worker");
    expect(out.status).toBe(2);
    expect(out.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(out.stderr).toMatch(/MGMT_BASE_URL.*PULUMI_CONFIG_PASSPHRASE.*; and --database: /);
  });

  // What the binary prints and what it accepts, each read from the binary: the option table both
  // come from (usage.ts) cannot make this pass by itself, a parser given other options would fail
  // it. The table the parser is given lists exactly what the help does (an option no help lists
  // is never tried through the binary), and a name no command has is refused by every one.
  const listedBy = (command: string) =>
    [...fleet(command, "--help").stdout.matchAll(/^ {2}--([a-z-]+)( [A-Z]+)?/gm)].map((m) => ({
      name: m[1],
      value: m[2] !== undefined,
    }));
  // Each command's --help read once, at the first test that needs them.
  let read: Map<string, ReturnType<typeof listedBy>> | undefined;
  const listings = () => (read ??= new Map(FLEET_COMMANDS.map((command) => [command, listedBy(command)])));
  test.each(FLEET_COMMANDS)("mgmt-fleet %s takes every option its --help lists, and refuses the others'", (command) => {
    const listed = listings().get(command)!;
    expect(listed.length).toBeGreaterThan(0);
    expect(Object.keys(fleetCommandLine(command).options).sort()).toEqual(
      [...listed.map((o) => o.name), "help"].sort(),
    );
    const all = new Map([...listings().values()].flat().map((o) => [o.name, o]));
    all.set("not-an-option", { name: "not-an-option", value: false });
    for (const option of all.values()) {
      const out = fleet(command, `--${option.name}`, ...(option.value ? ["1"] : []), "--help");
      const takes = listed.some((o) => o.name === option.name);
      expect([option.name, out.status, takes ? "" : out.stderr]).toEqual([
        option.name,
        takes ? 0 : 2,
        takes ? "" : `mgmt-fleet: unknown option --${option.name}; mgmt-fleet ${command} --help lists what it takes\n`,
      ]);
    }
  });

  test("the commands that submit and read jobs never load the Pulumi SDK: it costs a second of CPU at each start", () => {
    // Prints, as the process ends, the Pulumi SDK modules it loaded.
    const probe = path.join(cwd, "probe.js");
    writeFileSync(
      probe,
      `process.on("exit", () => process.stderr.write("loaded: " + Object.keys(require.cache).filter((f) => f.includes("@pulumi/pulumi")).length + "\\n"));`,
    );
    const loaded = (...args: string[]) =>
      spawnSync(process.execPath, ["--require", probe, BINS["mgmt-fleet"], ...args], {
        cwd,
        env,
        encoding: "utf8",
        timeout: 30_000,
      }).stderr;
    expect(loaded("status", "--help")).toBe("loaded: 0\n");
    // The probe sees the SDK where it is loaded.
    const sdk = spawnSync(process.execPath, ["--require", probe, "-e", 'require("@pulumi/pulumi")'], {
      cwd: ROOT,
      encoding: "utf8",
    }).stderr;
    expect(sdk).toMatch(/^loaded: [1-9]\d*\n$/);
  });
});
