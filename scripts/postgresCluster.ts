/**
 * A throw-away PostgreSQL cluster for a bench (scripts/postgres.sh, the one the tests use):
 * started in a folder directly under the temporary folder, which the cluster's unprivileged owner
 * must reach, and given back by `stop`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../provider/automation";

const POSTGRES = path.join(PACKAGE_ROOT, "scripts/postgres.sh");

export interface BenchPostgres {
  dir: string;
  url: string;
  /** Creates database `name` in the cluster and returns its URL (a fresh state or fleet database). */
  newDatabase(name: string): string;
  stop(): void;
}

export function startBenchPostgres(prefix: string): BenchPostgres {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const url = execFileSync("bash", [POSTGRES, "start", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
    .trim()
    .split("\n")
    .pop()!;
  return {
    dir,
    url,
    newDatabase: (name) => {
      execFileSync("bash", [POSTGRES, "sql", dir, `CREATE DATABASE ${name}`]);
      return url.replace("/pulumi?", `/${name}?`);
    },
    stop: () => void execFileSync("bash", [POSTGRES, "stop", dir], { stdio: "inherit" }),
  };
}
