/**
 * Jest global setup: the dynamic provider runs the compiled package (dist/, loaded by package
 * name in the provider process), while tests compile the sources they import. When the sources
 * differ from what dist/ was built from, or dist/ is missing, compile it and link the package, so
 * running one test file (`npx jest test/e2e/examples.test.ts`) never tests stale code.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
// The same check as scripts/setup.sh makes (a content hash; plain JS, as nothing is compiled yet).
const { isBuilt } = require(path.join(ROOT, "scripts/source-hash.js")) as { isBuilt(root: string): boolean };

export default function globalSetup(): void {
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
