/**
 * Where the Pulumi CLI is, and the environment every command the helpers run gets.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { PulumiCommand } from "@pulumi/pulumi/automation";
import { InternalError, UserError } from "../userError";

/** The root of the installed pulumi-mgmt package (this repository when developing). */
export const PACKAGE_ROOT = packageRoot(__dirname);

function packageRoot(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "pulumi-mgmt") return dir;
  }
  throw new InternalError(`cannot find the pulumi-mgmt package above ${from}`);
}

/**
 * The directory holding `pulumi`, `pulumi-language-nodejs` and `pulumi-resource-pulumi-nodejs`:
 * PULUMI_MGMT_CLI_DIR, else what `npm run setup` recorded, else scripts/ensure-pulumi.sh (which
 * uses a `pulumi` on PATH, a cached build, or builds one).
 */
let cliDir: string | undefined;
export function pulumiCliDir(): string {
  if (process.env.PULUMI_MGMT_CLI_DIR) return process.env.PULUMI_MGMT_CLI_DIR;
  cliDir ??= findCliDir();
  return cliDir;
}

function findCliDir(): string {
  const recorded = path.join(PACKAGE_ROOT, "node_modules/.cache/pulumi-mgmt/cli-dir");
  if (existsSync(recorded)) {
    const dir = readFileSync(recorded, "utf8").trim();
    if (existsSync(path.join(dir, "pulumi"))) return dir;
  }
  return ensurePulumi();
}

/**
 * Runs scripts/ensure-pulumi.sh (its progress on stderr, live: a build takes minutes) and returns
 * the CLI's folder. When it fails, its reason is this error's one line, not a command line and
 * the script's own text besides.
 */
export function ensurePulumi(env: NodeJS.ProcessEnv = process.env): string {
  let out: string;
  try {
    out = execFileSync("bash", [path.join(PACKAGE_ROOT, "scripts/ensure-pulumi.sh")], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...env, PULUMI_MGMT_ERROR_TO_STDOUT: "1" },
    });
  } catch (err) {
    const said = (err as { stdout?: unknown }).stdout;
    const reason = typeof said === "string" ? said.trim().split("\n").pop() : undefined;
    throw new UserError(`no Pulumi CLI for pulumi-mgmt: ${reason || "scripts/ensure-pulumi.sh failed (see above)"}`);
  }
  return out.trim().split("\n").pop()!;
}

let command: Promise<PulumiCommand> | undefined;
export function pulumiCommand(): Promise<PulumiCommand> {
  command ??= PulumiCommand.get({ root: path.dirname(pulumiCliDir()) });
  return command;
}

/**
 * Go's garbage collector for the CLI and the Go plugins and language hosts it starts: collect when
 * the heap has grown to five times what was live (GOGC=400) instead of twice (Go's 100). A CLI's
 * start allocates tens of MB of word lists that are garbage at once, so at Go's default a good
 * part of a short run's CPU is collection (docs/benchmarks.md, `npm run bench:cli`). The soft
 * ceiling (GOMEMLIMIT=2GiB, all of Go's memory) keeps a large state from growing to five times
 * itself: up to about 1 GiB live, Go collects no more often than at its default; above that it
 * trades CPU for memory, up to about half the CPU near 2 GiB live, where the default would let the
 * heap double. This package's stacks stay far below. Same binary, same behaviour; a GOGC or
 * GOMEMLIMIT the user set (in the environment or the run's own variables) wins, and either one
 * leaves both alone.
 */
export const CLI_GO_GC = { GOGC: "400", GOMEMLIMIT: "2GiB" } as const;

/**
 * The environment of every Pulumi command the helpers run: the CLI's folder on PATH (the dynamic
 * provider plugin and the language host are found beside `pulumi`), Go's collector tuned for
 * short runs (CLI_GO_GC) unless `process.env` or `runEnv` (the variables the run is given, which
 * go over these) sets it, and, when `offline`, no update check and no plugin download (what the
 * emulator-backed runs want; opt-in elsewhere).
 */
export function cliEnv(offline = false, runEnv: Record<string, string> = {}): Record<string, string> {
  const set = { ...process.env, ...runEnv };
  const userTunedGc = set.GOGC !== undefined || set.GOMEMLIMIT !== undefined;
  return {
    PATH: `${pulumiCliDir()}${path.delimiter}${process.env.PATH ?? ""}`,
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    ...(userTunedGc ? {} : CLI_GO_GC),
    ...(offline ? { PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" } : {}),
  };
}
