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

test("the README stays a guide: at most 200 lines, a first program within its first 40 (details belong in docs/)", () => {
  const lines = readme.split("\n");
  expect(lines.length).toBeLessThanOrEqual(200);
  expect(lines.slice(0, 40).join("\n")).toMatch(/```ts\nimport \{ [^}]+ \} from "pulumi-mgmt";/);
});

test("the README's Layout names every folder of the repository (two levels deep), and only folders that exist", () => {
  const layout = readme.split("## Layout")[1].split("\n## ")[0];
  const named = new Set([...layout.matchAll(/`(\.?[a-z][\w.-]*(?:\/[\w.-]+)*)\/`/g)].map((m) => m[1]));
  const tracked = execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" }).split("\n").filter(Boolean);
  // Deeper folders (a resource's own folder, one fixture) are described by their parent's line.
  const folders = new Set(
    tracked.map((file) => path.dirname(file).split("/").slice(0, 2).join("/")).filter((dir) => dir !== "."),
  );
  // The examples are listed, each with its role, in the README's Examples section.
  const examples = readme.split("## Examples")[1].split("\n## ")[0];
  const missing = [...folders].filter((dir) => !named.has(dir) && !examples.includes("`" + dir + "/`"));
  expect(missing).toEqual([]);
  const stale = [...named].filter((dir) => !existsSync(path.join(ROOT, dir)));
  expect(stale).toEqual([]);
});

test("the packed tarball is ignored by git", () => {
  expect(() => execFileSync("git", ["check-ignore", "-q", "pulumi-mgmt-0.1.0.tgz"], { cwd: ROOT })).not.toThrow();
});
