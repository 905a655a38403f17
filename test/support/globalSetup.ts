/**
 * Jest global setup. The dynamic provider runs the compiled package (dist/, loaded by package
 * name in the provider process), while tests compile the sources they import. When the sources
 * differ from what dist/ was built from, or dist/ is missing, compile it and link the package, so
 * running one test file (`npx jest test/e2e/examples.test.ts`) never tests stale code.
 *
 * Then the run's own Pulumi home (CONTRIBUTING.md, "Isolation"): nothing is written into the
 * developer's ~/.pulumi, and no CLI lists the log folder earlier runs grew there.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
// The same check as scripts/setup.sh makes (a content hash; plain JS, as nothing is compiled yet).
const { isBuilt } = require(path.join(ROOT, "scripts/source-hash.js")) as { isBuilt(root: string): boolean };

export default function globalSetup(): void {
  if (!isBuilt(ROOT)) {
    process.stderr.write("\n[jest] dist/ was not built from the current sources: compiling (scripts/setup.sh)\n");
    execFileSync("bash", [path.join(ROOT, "scripts/setup.sh")], {
      stdio: ["ignore", "inherit", "inherit"],
      env: withoutPulumiVars(),
    });
  }
  // Workers start after this and inherit both variables: PULUMI_HOME for what a test starts without
  // an env of its own, the other for isolate.ts, which removes every PULUMI_* variable first.
  // Removed by globalTeardown.ts.
  const home = mkdtempSync(path.join(os.tmpdir(), "pulumi-mgmt-test-home-"));
  process.env.PULUMI_MGMT_TEST_HOME = home;
  process.env.PULUMI_HOME = home;
  // Where every test stack's file backend is made (harness.ts testBackend), so that the run's
  // stacks go with the run, whichever test made them and however it ended.
  process.env.PULUMI_MGMT_TEST_STATES = mkdtempSync(path.join(os.tmpdir(), "pulumi-mgmt-test-states-"));
}

function withoutPulumiVars(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("MGMT_") && !k.startsWith("PULUMI_")),
  );
}
