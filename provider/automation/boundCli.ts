/**
 * A Pulumi CLI bound to the process that starts it. A driver or worker killed alone (`kill -9`,
 * the OOM killer) leaves its CLIs running: one waiting on its provider (a create waiting out a
 * Retry-After) writes no output, so it does not even meet the broken pipe, and the stack is
 * taken over while that run still acts on the service. Here every CLI is started through a small
 * wrapper that:
 *
 * - appends its pid (the CLI's own: the wrapper `exec`s it) to the file named by
 *   PULUMI_MGMT_CLI_PIDS, if set, before the CLI can take the stack's lock: Pulumi's lock names
 *   that pid and the host, which is how a later run proves a lock is a dead run's (fleet/stackLock.ts);
 * - on Linux, has the kernel SIGKILL the CLI when its parent dies (`setpriv --pdeathsig`, which
 *   sets PR_SET_PDEATHSIG and execs): the CLI dies with the driver, and its provider process
 *   within about a second after it (provider/engineWatch.ts).
 *
 * Without setpriv (macOS), only the pid is recorded; the takeover then relies on the run's
 * marker on the same machine (fleet/leftovers.ts).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PulumiCommand } from "@pulumi/pulumi/automation";
import { pulumiCliDir } from "./cli";

/** The environment variable naming the file each CLI appends its pid to. */
export const CLI_PIDS_ENV = "PULUMI_MGMT_CLI_PIDS";

let setpriv: boolean | undefined;
function hasSetpriv(): boolean {
  setpriv ??= findSetpriv();
  return setpriv;
}

function findSetpriv(): boolean {
  if (process.platform !== "linux") return false;
  try {
    return /--pdeathsig/.test(
      execFileSync("setpriv", ["--help"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
    );
  } catch {
    return false;
  }
}

/** The wrapper's root (holding bin/pulumi), written once per CLI folder and kind. */
function wrapperRoot(): string {
  const real = path.join(pulumiCliDir(), "pulumi");
  const bound = hasSetpriv();
  const script = [
    "#!/bin/sh",
    "# pulumi-mgmt: the Pulumi CLI, its pid recorded and (Linux) killed when its parent dies: provider/automation/boundCli.ts",
    `[ -n "$${CLI_PIDS_ENV}" ] && echo $$ >> "$${CLI_PIDS_ENV}"`,
    bound
      ? `exec setpriv --pdeathsig KILL -- '${real.replace(/'/g, `'\\''`)}' "$@"`
      : `exec '${real.replace(/'/g, `'\\''`)}' "$@"`,
    "",
  ].join("\n");
  const root = path.join(
    tmpdir(),
    `pulumi-mgmt-bound-cli-${createHash("sha256").update(script).digest("hex").slice(0, 12)}`,
  );
  const bin = path.join(root, "bin", "pulumi");
  if (!existsSync(bin)) {
    mkdirSync(path.dirname(bin), { recursive: true });
    // Written aside and renamed: processes starting side by side never run half a script.
    const partial = `${bin}.${process.pid}`;
    writeFileSync(partial, script);
    chmodSync(partial, 0o755);
    renameSync(partial, bin);
  }
  return root;
}

let command: Promise<PulumiCommand> | undefined;
/** The bound CLI, as the Automation API's `pulumiCommand` option takes it (its wrapper written again if a cleaner removed it). */
export function boundPulumiCommand(): Promise<PulumiCommand> {
  const root = wrapperRoot();
  command ??= PulumiCommand.get({ root });
  return command;
}
