/**
 * The npm package carries what a user's project needs at run time and nothing else: the compiled
 * provider and emulator (with types), the CLI bootstrap script with its fallback language host,
 * the README and the manifest. No sources, tests, benchmarks, examples or source maps.
 */
import { execFileSync } from "node:child_process";
import { PACKAGE_ROOT } from "../../provider/automation";

test("npm pack contains only what a user needs", () => {
  const [pack] = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: PACKAGE_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
  const files: string[] = pack.files.map((f: { path: string }) => f.path);
  const allowed = [/^package\.json$/, /^README\.md$/, /^dist\/(provider|emulator)\/.+\.(js|d\.ts)$/, /^scripts\/ensure-pulumi\.sh$/, /^scripts\/langhost\/(main\.go|go\.mod|go\.sum)$/];
  expect(files.filter((f) => !allowed.some((a) => a.test(f)))).toEqual([]);
  // What state and programs load by name must be there.
  for (const must of ["dist/provider/index.js", "dist/provider/automation.js", "dist/emulator/index.js", "dist/emulator/cli.js", "dist/provider/providers/searchIndex.js", "dist/provider/providers/messagingQueue.js", "dist/provider/runtime.js", "dist/provider/resources/messagingControls.js"]) {
    expect(files).toContain(must);
  }
  expect(pack.size).toBeLessThan(150_000);
});

test("a project compiled with moduleResolution \"node\" (Pulumi's TypeScript template) finds the types of pulumi-mgmt/automation", () => {
  // examples/tenants imports pulumi-mgmt and pulumi-mgmt/automation from the installed package
  // (node_modules/pulumi-mgmt, from npm pack); its tsconfig says moduleResolution "node".
  const tsc = require.resolve("typescript/bin/tsc");
  expect(() => execFileSync(process.execPath, [tsc, "-p", `${PACKAGE_ROOT}/examples/tenants/tsconfig.json`, "--noEmit"], { encoding: "utf8", stdio: "pipe" })).not.toThrow();
});
