/**
 * Go builds a test makes (the generated Go SDK, the Go proof) as the repository's scripts make
 * theirs: in its Go workspace (go.work, one module graph with the CLI), with -trimpath, so that
 * they reuse what the CLI's build compiled (scripts/gotools/tools.go says why).
 */
import { execFileSync } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");

/** The environment of a Go command in the workspace: no -mod=mod (workspace mode refuses it), Pulumi's checksums skipped. */
export function workspaceGoEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GOWORK: path.join(ROOT, "go.work"),
    GOFLAGS: "",
    GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? "local",
    GONOSUMDB: "github.com/pulumi",
    // As the scripts build (scripts/ensure-pulumi.sh): Go's compiler collects less often.
    GOGC: process.env.GOGC ?? "400",
  };
}

/** `go build -trimpath <args>` in `dir` (a module of the workspace); its errors on stderr. */
export function goBuild(dir: string, args: string[]): void {
  execFileSync("go", ["build", "-trimpath", ...args], {
    cwd: dir,
    env: workspaceGoEnv(),
    stdio: ["ignore", "ignore", "inherit"],
  });
}
