/**
 * Jest global setup: the dynamic provider runs the compiled package (dist/, loaded by package
 * name in the provider process), while tests compile the sources they import. When a source is
 * newer than dist/, or dist/ is missing, compile it and link the package, so running one test
 * file (`npx jest test/e2e/examples.test.ts`) never tests stale code.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const STAMP = path.join(ROOT, "dist/.built");

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

export default function globalSetup(): void {
  const sources = Math.max(...["provider", "emulator", "scripts", "bench"].map((d) => newestSource(path.join(ROOT, d))), statSync(path.join(ROOT, "package.json")).mtimeMs);
  const linked = existsSync(path.join(ROOT, "node_modules/pulumi-mgmt/package.json"));
  if (linked && existsSync(STAMP) && statSync(STAMP).mtimeMs >= sources) return;
  process.stderr.write("\n[jest] dist/ is older than the sources: compiling (scripts/setup.sh)\n");
  execFileSync("bash", [path.join(ROOT, "scripts/setup.sh")], { stdio: ["ignore", "inherit", "inherit"], env: withoutPulumiVars() });
}

function withoutPulumiVars(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("MGMT_") && !k.startsWith("PULUMI_")));
}
