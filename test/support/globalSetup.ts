/**
 * Jest global setup. The run's own Pulumi home (PULUMI_HOME for every test, isolate.ts): the CLI
 * writes a log per command into its home and lists that whole folder at every start, so a shared
 * ~/.pulumi/logs grown by earlier runs made every CLI of the suite slower run after run (0.4 s of
 * CPU per start at 26,000 files), and the tests would write into the developer's home.
 *
 * Then: the dynamic provider runs the compiled package (dist/, loaded by package
 * name in the provider process), while tests compile the sources they import. When the sources
 * differ from what dist/ was built from, or dist/ is missing, compile it and link the package, so
 * running one test file (`npx jest test/e2e/examples.test.ts`) never tests stale code.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
// The same check as scripts/setup.sh makes (a content hash; plain JS, as nothing is compiled yet).
const { isBuilt } = require(path.join(ROOT, "scripts/source-hash.js")) as { isBuilt(root: string): boolean };

export default function globalSetup(): void {
  // Read by isolate.ts in each worker (workers start after this and inherit the variable); removed by globalTeardown.ts.
  process.env.PULUMI_MGMT_TEST_HOME = mkdtempSync(path.join(os.tmpdir(), "pulumi-mgmt-test-home-"));
  if (isBuilt(ROOT)) return;
  process.stderr.write("\n[jest] dist/ was not built from the current sources: compiling (scripts/setup.sh)\n");
  execFileSync("bash", [path.join(ROOT, "scripts/setup.sh")], {
    stdio: ["ignore", "inherit", "inherit"],
    env: withoutPulumiVars(),
  });
}

function withoutPulumiVars(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("MGMT_") && !k.startsWith("PULUMI_")),
  );
}
