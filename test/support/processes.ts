/**
 * Processes as /proc shows them (Linux). The processes of fleet runs on this machine: each carries
 * its run's marker in its environment (fleet/leftovers.ts). A test that ends a driver or
 * worker checks that none is left: a leftover plugin is one that can still send a request for a
 * run that is over. And a test's own descendants, which a test kills as `kill -9` would: never
 * another process of the machine, such as a developer's own `pulumi up`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { runEnv } from "../../fleet/leftovers";

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

/** Every live process's parent, read from /proc at one moment. */
export function parentPids(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone already
    }
  }
  return parentOf;
}

/** The descendants of `root` in `parentOf` (children, theirs, and so on). */
export function descendantsOf(root: number, parentOf: Map<number, number> = parentPids()): number[] {
  const below = (pid: number): boolean => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) if (p === root) return true;
    return false;
  };
  return [...parentOf.keys()].filter(below);
}

/** A process's command line, its words joined by spaces; "" once it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}
