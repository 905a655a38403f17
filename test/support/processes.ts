/**
 * The processes of fleet runs on this machine: each carries its run's marker in its environment
 * (provider/fleet/leftovers.ts). A test that ends a driver or worker checks that none is left:
 * a leftover plugin is one that can still send a request for a run that is over.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { runEnv } from "../../provider/fleet/leftovers";

/** The live processes of runs recorded in the fleet database `database` (another test's leftovers are not this test's). */
export function fleetRunProcesses(database: string): number[] {
  if (!existsSync("/proc/self/environ")) return [];
  const ofThisDatabase = new RegExp(`PULUMI_MGMT_FLEET_RUN=\\d+${Object.values(runEnv(database, "")).join("")}\\0`);
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return (
          ofThisDatabase.test(`${readFileSync(`/proc/${n}/environ`, "utf8")}\0`) &&
          !readFileSync(`/proc/${n}/stat`, "utf8").includes(") Z ")
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}
