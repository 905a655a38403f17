/**
 * Go builds a test makes (the generated Go SDK, the Go proof) as the repository's scripts make
 * theirs: in its Go workspace (go.work, one module graph with the CLI), with -trimpath, so that
 * they reuse what the CLI's build compiled (scripts/gotools/tools.go says why).
 */
import { execFileSync } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

let workspaceVars: Record<string, string> | undefined;

/** The environment of a Go command in the workspace, as scripts/go-env.sh (what the scripts source) gives it. */
export function workspaceGoEnv(): NodeJS.ProcessEnv {
  workspaceVars ??= Object.fromEntries(
    execFileSync("bash", [path.join(ROOT, "scripts/go-env.sh"), "--workspace", ROOT], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  return { ...process.env, ...workspaceVars };
}

/** `go build -trimpath <args>` in `dir` (a module of the workspace); its errors on stderr. */
export function goBuild(dir: string, args: string[]): void {
  execFileSync("go", ["build", "-trimpath", ...args], {
    cwd: dir,
    env: workspaceGoEnv(),
    stdio: ["ignore", "ignore", "inherit"],
  });
}
