/**
 * The npm package carries what a user's program needs at run time and nothing else: the compiled
 * provider (with types), the CLI bootstrap script with its fallback language host, the README, the
 * LICENSE and the manifest. No sources, tests, benchmarks, examples or source maps, and no emulator
 * or fleet: those are packages of their own (emulator/, fleet/: test/unit/workspacePackages.test.ts).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { PACKAGE_ROOT } from "../../provider/automation";

test("npm pack contains only what a user needs", () => {
  const [pack] = JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: PACKAGE_ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }),
  );
  const files: string[] = pack.files.map((f: { path: string }) => f.path);
  const allowed = [
    /^package\.json$/,
    /^README\.md$/,
    /^docs\/[a-z]+\.md$/,
    /^LICENSE$/,
    /^dist\/provider\/.+\.(js|d\.ts)$/,
    /^dist\/provider\/plugin\/THIRD_PARTY_LICENSES\.txt$/,
    /^scripts\/(ensure-pulumi|go-env)\.sh$/,
    /^scripts\/langhost\/(main\.go|go\.mod|go\.sum)$/,
    /^examples\/new-project\/(Pulumi\.yaml|README\.md|index\.ts|package\.json|tsconfig\.json|gitignore)$/,
  ];
  expect(files.filter((f) => !allowed.some((a) => a.test(f)))).toEqual([]);
  // What state and programs load by name must be there.
  for (const must of [
    "LICENSE",
    // ensure-pulumi.sh, which the package runs to build a CLI, sources it.
    "scripts/ensure-pulumi.sh",
    "scripts/go-env.sh",
    "dist/provider/cli/template.js",
    "examples/new-project/Pulumi.yaml",
    // mgmt-template writes it as the project's .gitignore (npm leaves a .gitignore out).
    "examples/new-project/gitignore",
    "dist/provider/index.js",
    "dist/provider/automation/index.js",
    "dist/provider/providers/searchIndex.js",
    "dist/provider/providers/messagingQueue.js",
    "dist/provider/providers/messagingBudget.js",
    "dist/provider/providers/flowControlKey.js",
    "dist/provider/providers/messagingAccount.js",
    "dist/provider/providers/databaseBudget.js",
    "dist/provider/runtime.js",
    "dist/provider/resources/messagingControls.js",
    "dist/provider/plugin/main.bundle.js",
    "dist/provider/plugin/start.js",
    "dist/provider/plugin/THIRD_PARTY_LICENSES.txt",
  ]) {
    expect(files).toContain(must);
  }
  // Compressed size: about 580 kB with nine resources (each input's description written on its declaration for editors, scripts/argDocs.ts), the plugin (its calls, invokes, Construct, import and install) and its one-file bundle (about 270 kB of it, with its packages' licenses: the package's own compiled modules a second time, zod, grpc-js and the SDK's protocol messages, scripts/bundlePlugin.ts), every command's usage and docs/ (what a user reads; CONTRIBUTING.md stays in the repository), and the fallback language host's sources (its go.sum, 51 kB of checksums that do not compress, since it generates programs with Pulumi's code generators); a jump means something big slipped in.
  expect(pack.size).toBeLessThan(595_000);
});

test("a program's install gets the SDK as a peer, the client, zod and the plugin's gRPC: nothing else", () => {
  // Each runtime dependency is code every user's program installs and a review reads: a new one
  // fails this test until it is named here. The emulator's web server and the fleet's queue and
  // database driver live in their own packages; TypeScript is the project's choice (an optional peer).
  const manifest = JSON.parse(readFileSync(`${PACKAGE_ROOT}/package.json`, "utf8"));
  expect(Object.keys(manifest.dependencies).sort()).toEqual(["@grpc/grpc-js", "google-protobuf", "undici", "zod"]);
  expect(Object.keys(manifest.peerDependencies).sort()).toEqual(["@pulumi/pulumi", "typescript"]);
  expect(manifest.peerDependenciesMeta).toEqual({ typescript: { optional: true } });
  expect(manifest.optionalDependencies ?? {}).toEqual({});
  expect(manifest.bundleDependencies ?? manifest.bundledDependencies ?? []).toEqual([]);
});

test("the package carries the license its manifest names", () => {
  // package.json says Apache-2.0; the license requires its text to go with every copy.
  const manifest = JSON.parse(readFileSync(`${PACKAGE_ROOT}/package.json`, "utf8"));
  expect(manifest.license).toBe("Apache-2.0");
  const text = readFileSync(`${PACKAGE_ROOT}/LICENSE`, "utf8");
  expect(text).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004\s/);
  expect(text).toContain("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION");
  expect(text).toContain("END OF TERMS AND CONDITIONS");
});

test('a project compiled with moduleResolution "node" (Pulumi\'s TypeScript template) finds the types of pulumi-mgmt/automation', () => {
  // examples/tenants imports pulumi-mgmt and pulumi-mgmt/automation from the installed package
  // (node_modules/pulumi-mgmt, from npm pack); its tsconfig says moduleResolution "node".
  const tsc = require.resolve("typescript/bin/tsc");
  expect(() =>
    execFileSync(process.execPath, [tsc, "-p", `${PACKAGE_ROOT}/examples/tenants/tsconfig.json`, "--noEmit"], {
      encoding: "utf8",
      stdio: "pipe",
    }),
  ).not.toThrow();
});

test("every runtime dependency accepts the lowest Node the package declares, and no pin lives only in overrides", () => {
  // npm warns EBADENGINE on install for a dependency that asks for a newer Node than the user has.
  const semver = require("semver") as typeof import("semver");
  const manifest = JSON.parse(readFileSync(`${PACKAGE_ROOT}/package.json`, "utf8"));
  const lowest = semver.minVersion(manifest.engines.node)!.version;
  const lock = JSON.parse(readFileSync(`${PACKAGE_ROOT}/package-lock.json`, "utf8")) as {
    packages: Record<string, { dev?: boolean; version?: string; engines?: { node?: string } }>;
  };
  const refusing = Object.entries(lock.packages)
    .filter(([name, p]) => name && !p.dev && p.engines?.node && !semver.satisfies(lowest, p.engines.node))
    .map(([name, p]) => `${name}@${p.version} wants node ${p.engines!.node}`);
  expect(refusing).toEqual([]);
  // A project that installs pulumi-mgmt never sees this package's overrides: a pin must be a dependency.
  expect(manifest.overrides ?? {}).toEqual({});
});
