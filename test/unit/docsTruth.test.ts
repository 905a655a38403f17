/**
 * What the README says about the repository holds: the examples it says have a README have one,
 * and the tarball `npm pack` writes in a checkout (docs/automation.md) is not left to be committed.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");

test("every example the README lists has a README, or the README says where it is described instead", () => {
  const section = readme.split("## Examples")[1].split("\n## ")[0];
  const listed = [...section.matchAll(/^- `examples\/([^/`]+)\/`/gm)].map((m) => m[1]);
  expect(listed.length).toBeGreaterThan(3);
  const intro = section.split("\n- ")[0];
  const without = listed.filter((name) => !existsSync(path.join(ROOT, "examples", name, "README.md")));
  for (const name of without) expect(intro).toContain(name);
  if (without.length > 0) expect(intro).not.toMatch(/^Each is a complete project with a README/m);
});

test("the packed tarball is ignored by git", () => {
  expect(() => execFileSync("git", ["check-ignore", "-q", "pulumi-mgmt-0.1.0.tgz"], { cwd: ROOT })).not.toThrow();
});
