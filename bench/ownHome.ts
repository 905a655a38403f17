/**
 * Every bench runs its Pulumi CLIs in a Pulumi home new for the run: the CLI lists its log folder
 * at every start (fleet/cliLogs.ts), so in the machine's ~/.pulumi a figure would depend
 * on how many logs earlier runs left there, and two legs of one bench could pay different costs.
 * Sets PULUMI_HOME for this process and everything it starts; the folder goes when it exits.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export function useOwnPulumiHome(): string {
  const home = mkdtempSync(path.join(os.tmpdir(), "pulumi-mgmt-bench-home-"));
  process.env.PULUMI_HOME = home;
  process.on("exit", () => rmSync(home, { recursive: true, force: true }));
  return home;
}
