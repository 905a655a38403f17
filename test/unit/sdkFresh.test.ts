/**
 * Issue 37 item 4: the SDKs under sdk/ are what Pulumi's code generators write from the plugin's
 * current schema (scripts/gen-sdk.sh), and the ones this machine can compile do compile. The
 * first run builds the generators (Go, a minute or two), hence the long timeouts. .NET is not
 * built: no NuGet here (docs/plugin.md).
 */
import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { goBuild } from "../support/goWorkspace";

const ROOT = path.resolve(__dirname, "../..");
const SDK = path.join(ROOT, "sdk");
const LANGUAGES = ["go", "python", "dotnet", "nodejs"];
const MINUTES = 60_000;

/** Runs a command to its end; its output is the failure message when it does not exit 0. */
function run(command: string, args: string[], options: SpawnSyncOptions = {}): void {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error) throw result.error;
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
  expect([`${command} ${args.join(" ")}`, result.status, result.status === 0 ? "" : output]).toEqual([
    `${command} ${args.join(" ")}`,
    0,
    "",
  ]);
}

/** Every file under a folder, as paths relative to it, sorted. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** The first file that is in one tree and not the other, or differs: `sdk/<path> (why)`, or "". */
function firstStale(committed: string, generated: string): string {
  const have = filesUnder(committed);
  const want = filesUnder(generated);
  for (const file of [...new Set([...have, ...want])].sort()) {
    const where = `sdk/${file.split(path.sep).join("/")}`;
    if (!have.includes(file)) return `${where} (missing: the generators write it)`;
    if (!want.includes(file)) return `${where} (left over: the generators no longer write it)`;
    if (!readFileSync(path.join(committed, file)).equals(readFileSync(path.join(generated, file))))
      return `${where} (differs from what the generators write)`;
  }
  return "";
}

describe("sdk/", () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), "mgmt-sdk-"));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  test(
    "is what scripts/gen-sdk.sh writes from the current schema",
    () => {
      const out = path.join(work, "generated");
      run("bash", ["scripts/gen-sdk.sh", "--out", out]);
      expect(filesUnder(out).length).toBeGreaterThan(0);
      const stale = firstStale(SDK, out);
      expect(stale && `${stale}: the SDKs are stale, run \`npm run gen:sdk\` and commit sdk/`).toBe("");
      for (const language of LANGUAGES) expect(filesUnder(path.join(SDK, language)).length).toBeGreaterThan(0);
    },
    20 * MINUTES,
  );

  test("every Python file compiles (python3 -m py_compile)", () => {
    const files = filesUnder(path.join(SDK, "python"))
      .filter((f) => f.endsWith(".py"))
      .map((f) => path.join(SDK, "python", f));
    expect(files.length).toBeGreaterThan(0);
    // The bytecode goes to the temporary folder, not into sdk/.
    run("python3", ["-m", "py_compile", ...files], {
      env: { ...process.env, PYTHONPYCACHEPREFIX: path.join(work, "pycache") },
    });
  });

  test("the Node.js SDK type-checks against the repository's @pulumi/pulumi", () => {
    run(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "sdk/nodejs/tsconfig.json", "--noEmit"]);
  });

  test(
    "the Go SDK builds (go build ./..., in the Go workspace: against the Pulumi Go SDK of the CLI's version)",
    () => {
      // In place: the workspace (go.work) records the checksums the generated module has none of.
      goBuild(path.join(SDK, "go"), ["./..."]);
    },
    20 * MINUTES,
  );
});
