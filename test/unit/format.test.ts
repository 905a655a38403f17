/**
 * Every tracked source is formatted as `npm run format` writes it (.prettierrc.yaml), so that lines
 * stop growing past 120 columns and a diff shows changes, not reflowed lines. What Prettier does
 * not format (shell, Go, Markdown, the template: .prettierignore) is skipped.
 */
import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

test("every tracked source is formatted (npm run format:check)", () => {
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
  const prettier = path.join(ROOT, "node_modules/.bin/prettier");
  const run = spawnSync(prettier, ["--list-different", "--ignore-unknown", ...tracked], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (run.error) throw run.error;
  const unformatted = run.stdout.split("\n").filter(Boolean);
  // Exit 1 lists the files; 2 is Prettier failing (a syntax error, a bad config): shown as is.
  expect(run.status === 2 ? run.stderr.trim() : "").toBe("");
  expect(unformatted).toEqual([]);
});
