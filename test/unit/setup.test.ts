/**
 * scripts/setup.sh skips what is up to date: one content hash of the build's inputs
 * (scripts/source-hash.js, also what Jest's global setup checks) decides whether dist/ and the
 * packed package are rebuilt, a second one (adding test/) whether the type-check runs again.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const { sourceHash, isBuilt } = require(path.join(ROOT, "scripts/source-hash.js")) as {
  sourceHash(root: string, options?: { typecheck?: boolean }): string;
  isBuilt(root: string): boolean;
};

describe("scripts/source-hash.js", () => {
  let copy: string;
  const build = () => sourceHash(copy);
  const typecheck = () => sourceHash(copy, { typecheck: true });

  beforeAll(() => {
    copy = mkdtempSync(path.join(tmpdir(), "source-hash-"));
    const inputs = [
      "provider",
      "emulator",
      "scripts",
      "bench",
      "test",
      "examples/search-index",
      "package.json",
      "package-lock.json",
      "tsconfig.json",
      "tsconfig.build.json",
      "README.md",
      "LICENSE",
    ];
    for (const p of inputs)
      cpSync(path.join(ROOT, p), path.join(copy, p), {
        recursive: true,
        filter: (src) => !src.includes("node_modules"),
      });
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  test("an unchanged tree keeps its hash, and the command line prints the same", () => {
    expect(build()).toMatch(/^[0-9a-f]{64}$/);
    expect(build()).toBe(build());
    expect(
      execFileSync(process.execPath, [path.join(ROOT, "scripts/source-hash.js"), copy], { encoding: "utf8" }).trim(),
    ).toBe(build());
    expect(
      execFileSync(process.execPath, [path.join(ROOT, "scripts/source-hash.js"), "--typecheck", copy], {
        encoding: "utf8",
      }).trim(),
    ).toBe(typecheck());
    expect(typecheck()).not.toBe(build());
  });

  test.each([
    ["editing a source", "emulator/cli.ts"],
    ["editing the manifest", "package.json"],
    ["editing the build's tsconfig", "tsconfig.build.json"],
    ["editing a packed file outside dist/", "scripts/langhost/main.go"],
  ])("%s changes both hashes; undoing it restores them", (_, file) => {
    const [b, t] = [build(), typecheck()];
    const original = readFileSync(path.join(copy, file));
    writeFileSync(path.join(copy, file), Buffer.concat([original, Buffer.from("\n")]));
    expect(build()).not.toBe(b);
    expect(typecheck()).not.toBe(t);
    writeFileSync(path.join(copy, file), original);
    expect([build(), typecheck()]).toEqual([b, t]);
  });

  test("adding, removing or renaming a file changes the hash, even with no content", () => {
    const b = build();
    writeFileSync(path.join(copy, "provider/empty.ts"), "");
    expect(build()).not.toBe(b);
    unlinkSync(path.join(copy, "provider/empty.ts"));
    expect(build()).toBe(b);

    const removed = path.join(copy, "bench/emulatorProcess.ts");
    const content = readFileSync(removed);
    unlinkSync(removed);
    expect(build()).not.toBe(b);
    writeFileSync(removed, content);
    expect(build()).toBe(b);

    renameSync(removed, path.join(copy, "bench/renamed.ts"));
    expect(build()).not.toBe(b);
    renameSync(path.join(copy, "bench/renamed.ts"), removed);
    expect(build()).toBe(b);
  });

  test('a folder package.json packs ("files") counts, as README and LICENSE do', () => {
    const manifest = readFileSync(path.join(copy, "package.json"), "utf8");
    const packed = JSON.parse(manifest);
    packed.files = [...packed.files.filter((f: string) => !f.startsWith("examples/")), "examples/search-index"];
    writeFileSync(path.join(copy, "package.json"), JSON.stringify(packed));
    const b = build();
    writeFileSync(path.join(copy, "examples/search-index/Pulumi.yaml"), "name: edited\n", { flag: "a" });
    expect(build()).not.toBe(b);
    writeFileSync(path.join(copy, "package.json"), manifest);
    for (const file of ["README.md", "LICENSE"]) {
      const before = build();
      writeFileSync(path.join(copy, file), "\n", { flag: "a" });
      expect(build()).not.toBe(before);
    }
  });

  test("what runs leave in compiled folders (not TypeScript) counts for neither", () => {
    const [b, t] = [build(), typecheck()];
    writeFileSync(path.join(copy, "test/fixtures/Pulumi.dev.yaml"), "config: {}\n");
    writeFileSync(path.join(copy, "provider/debug.log"), "x\n");
    expect([build(), typecheck()]).toEqual([b, t]);
    // Non-TypeScript files npm packs still count.
    writeFileSync(path.join(copy, "scripts/ensure-pulumi.sh"), "\n", { flag: "a" });
    expect(build()).not.toBe(b);
  });

  test("tests and examples count for the type-check only", () => {
    const [b, t] = [build(), typecheck()];
    writeFileSync(path.join(copy, "test/unit/extra.test.ts"), "export {};\n");
    expect(build()).toBe(b);
    expect(typecheck()).not.toBe(t);
    unlinkSync(path.join(copy, "test/unit/extra.test.ts"));
    expect(typecheck()).toBe(t);
    // examples/ are type-checked (the main job runs examples/quickstart transpile-only), not built.
    writeFileSync(path.join(copy, "examples/search-index/extra.ts"), "export {};\n"); // not in "files" of the real package.json
    expect(build()).toBe(b);
    expect(typecheck()).not.toBe(t);
  });
});

describe("scripts/setup.sh", () => {
  const setup = (...args: string[]) =>
    spawnSync("bash", [path.join(ROOT, "scripts/setup.sh"), ...args], { encoding: "utf8" });
  const mtime = (file: string) => statSync(path.join(ROOT, file)).mtimeMs;

  beforeAll(async () => {
    // A Pulumi CLI build under way (setup.sh runs ensure-pulumi.sh last): starting a second one
    // would double its cost, so wait for it.
    while (spawnSync("pgrep", ["-f", "ensure-pulumi"]).status === 0) await new Promise((r) => setTimeout(r, 5_000));
    const run = setup("--typecheck"); // builds what is missing
    if (run.status !== 0) throw new Error(`scripts/setup.sh --typecheck failed:\n${run.stderr}`);
  }, 40 * 60_000);

  test(
    "with nothing changed it neither compiles, packs nor type-checks",
    () => {
      const outputs = [
        "dist/.built",
        "dist/emulator/cli.js",
        "emulator/dist/cli.js",
        "fleet/dist/cli.js",
        "node_modules/pulumi-mgmt/package.json",
        "node_modules/.cache/pulumi-mgmt/pulumi-mgmt.tgz",
      ];
      const hashes = () => [sourceHash(ROOT), sourceHash(ROOT, { typecheck: true })].join();
      // Sources edited by someone else meanwhile would rightly rebuild: then bring it up to date
      // again and retry.
      for (let attempt = 1; ; attempt++) {
        expect(setup("--typecheck").status).toBe(0);
        const inputs = hashes();
        const before = outputs.map(mtime);
        const run = setup("--typecheck");
        if (hashes() !== inputs && attempt < 3) continue;
        expect(run.status).toBe(0);
        expect(run.stderr).toContain("[setup] type-check is up to date");
        expect(run.stderr).toContain("[setup] dist/ is up to date");
        expect(run.stderr).not.toMatch(/compiling|type-checking/);
        expect(outputs.map(mtime)).toEqual(before);
        // The check Jest's global setup makes agrees.
        expect(isBuilt(ROOT)).toBe(true);
        expect(readFileSync(path.join(ROOT, "dist/.built"), "utf8").trim()).toBe(sourceHash(ROOT));
        break;
      }
    },
    10 * 60_000,
  );
});

test("the package installed for the repository's programs runs the repository's Pulumi CLI, never a build of its own", () => {
  // A process outside Jest, as a fleet worker or the tenants driver is: it resolves `pulumi-mgmt`
  // to node_modules/pulumi-mgmt, whose own ensure-pulumi.sh would build the SDK's version of the
  // CLI (a second build, minutes long on a bare machine, seen there as two suites at their timeout).
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "PULUMI_MGMT_CLI_DIR"));
  const installed = execFileSync(
    process.execPath,
    ["-e", `process.stdout.write(require("pulumi-mgmt/automation").pulumiCliDir())`],
    // From a program's folder (the repository's own folder would resolve the name to itself).
    { cwd: path.join(ROOT, "examples/tenants"), env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  const recorded = readFileSync(path.join(ROOT, "node_modules/.cache/pulumi-mgmt/cli-dir"), "utf8").trim();
  expect(installed).toBe(recorded);
});

test("npm run setup puts Pulumi's YAML host beside the CLI it sets up, and says how to put that CLI on PATH", () => {
  const script = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts.setup as string;
  const [command, ...args] = script.split(" ");
  // A PATH with no pulumi on it, as a new user's.
  const bare = (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => !existsSync(path.join(dir, "pulumi")))
    .join(path.delimiter);
  const run = spawnSync(command, args, { cwd: ROOT, encoding: "utf8", env: { ...process.env, PATH: bare } });
  expect(run.status).toBe(0);
  const cliDir = readFileSync(path.join(ROOT, "node_modules/.cache/pulumi-mgmt/cli-dir"), "utf8").trim();
  expect(run.stderr).toContain("[ensure-yaml]");
  expect(existsSync(path.join(cliDir, "pulumi-language-yaml"))).toBe(true);
  expect(run.stderr).toContain(`export PATH="${cliDir}:$PATH"`);
}, 600_000);
