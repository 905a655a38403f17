/**
 * The pure parts of the bench's plugin leg (bench/pluginLeg.ts, bench/stateSize.ts): the YAML
 * program it runs, how a process's CPU is read from /proc, the state count it reports, and the
 * modules a provider process has loaded when it prints its port.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { YAML_PROJECT, modulesAtStartup, searchIndexesYaml, statTicks } from "../../bench/pluginLeg";
import { checkpointFile, searchIndexStateSplit } from "../../bench/stateSize";

describe("searchIndexesYaml", () => {
  const text = searchIndexesYaml(3, "p200r0", "/tmp/a dir: with spaces/.plugin");

  it("declares n search indexes, idx-0 to idx-(n-1), named <tag>-<i> as the dynamic leg names them", () => {
    expect(text.match(/^ {4}type: mgmt:index:SearchIndex$/gm)).toHaveLength(3);
    expect(text.match(/^ {2}idx-\d+:$/gm)).toEqual(["  idx-0:", "  idx-1:", "  idx-2:"]);
    expect(text.match(/^ {6}name: .*$/gm)).toEqual([
      '      name: "p200r0-0"',
      '      name: "p200r0-1"',
      '      name: "p200r0-2"',
    ]);
    expect(text.match(/^ {6}region: eu-west-1$/gm)).toHaveLength(3);
    expect(text.match(/^ {6}type: free$/gm)).toHaveLength(3);
  });

  it("is a YAML project served by the plugin from the folder named in plugins.providers, quoted whatever it holds", () => {
    expect(text.startsWith(`name: ${YAML_PROJECT}\nruntime: yaml\nplugins:\n  providers:\n    - name: mgmt\n`)).toBe(
      true,
    );
    expect(text).toContain('      path: "/tmp/a dir: with spaces/.plugin"\nresources:\n');
  });

  it("refuses a count that declares nothing", () => {
    expect(() => searchIndexesYaml(0, "t", "/p")).toThrow(/whole number from 1, got 0/);
    expect(() => searchIndexesYaml(1.5, "t", "/p")).toThrow(/got 1.5/);
  });
});

describe("statTicks", () => {
  it("reads utime+stime and cutime+cstime after a command name holding spaces and parentheses", () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
    const stat = "4242 (node (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 37 5 120 30 20 0 11 0\n";
    expect(statTicks(stat)).toEqual({ own: 42, children: 150 });
  });

  it("reads this process's own /proc entry", () => {
    const { own, children } = statTicks(require("node:fs").readFileSync("/proc/self/stat", "utf8"));
    expect(Number.isInteger(own) && own >= 0).toBe(true);
    expect(Number.isInteger(children) && children >= 0).toBe(true);
  });
});

describe("state per index", () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), "bench-state-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A file:// backend's checkpoint holding `resources`, and a stale backup beside it. */
  const backend = (resources: unknown[]): string[] => {
    const stacks = path.join(dir, ".pulumi/stacks/proj");
    mkdirSync(stacks, { recursive: true });
    const file = path.join(stacks, "dev.json");
    writeFileSync(file, JSON.stringify({ checkpoint: { latest: { resources } } }));
    writeFileSync(`${file}.bak`, "not json");
    return [`${file}.bak`, file];
  };

  it("finds the checkpoint, not its backup", () => {
    const files = backend([]);
    expect(checkpointFile(files)).toBe(files[1]);
    expect(() => checkpointFile([files[0]])).toThrow(/no checkpoint file/);
  });

  it("counts a plugin entry's provider as nothing, and a dynamic entry's serialized provider apart", () => {
    const inputs = { name: "n", region: "eu-west-1", type: "free" };
    const plugin = { type: "mgmt:index:SearchIndex", inputs, outputs: { ...inputs, endpoint: "e" } };
    const dynamic = {
      type: "pulumi-nodejs:dynamic:SearchIndex",
      inputs: { ...inputs, __provider: "p".repeat(10) },
      outputs: { ...inputs, __provider: "p".repeat(10) },
      sourcePosition: "project:///a.ts#1",
    };
    const split = searchIndexStateSplit(backend([plugin]));
    expect(split.provider).toBe(0);
    expect(split.total).toBe(JSON.stringify(plugin).length);
    expect(split.inputs).toBe(JSON.stringify(inputs).length);

    const dyn = searchIndexStateSplit(backend([dynamic]));
    expect(dyn.provider).toBe(2 * JSON.stringify("p".repeat(10)).length);
    expect(dyn.inputs).toBe(JSON.stringify(inputs).length);
    expect(dyn.sourceTrace).toBe(JSON.stringify(dynamic.sourcePosition).length);
  });
});

describe("modulesAtStartup", () => {
  test("runs the script as the main module, as the engine does, and counts its modules but not the probe's", async () => {
    // Like the plugin's start.js, which does nothing when merely required.
    const dir = mkdtempSync(path.join(tmpdir(), "modules-at-startup-"));
    try {
      writeFileSync(path.join(dir, "dep.js"), "module.exports = 1;\n");
      writeFileSync(
        path.join(dir, "main.js"),
        'if (require.main === module) { require("./dep.js"); process.stdout.write(process.argv[2] + "\\n"); }\n',
      );
      expect(await modulesAtStartup(path.join(dir, "main.js"), ["port"])).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
