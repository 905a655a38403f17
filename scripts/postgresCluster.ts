/**
 * scripts/postgres.sh from TypeScript: a throw-away PostgreSQL cluster for a test file or a bench
 * (the script installs PostgreSQL from Debian's packages if needed; its own error, no root or no
 * apt-get, is the failure), started in a folder directly under the temporary folder, which the
 * cluster's unprivileged owner must reach, and removed by `stop`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../provider/automation";

const POSTGRES = path.join(PACKAGE_ROOT, "scripts/postgres.sh");

export interface PostgresCluster {
  dir: string;
  /** postgres://... of its database, for Pulumi's backend and for node-postgres alike. */
  url: string;
  /** Creates database `name` in the cluster and returns its URL (a fresh state or fleet database). */
  newDatabase(name: string): string;
  /** One of postgres.sh's commands on this cluster: restart, halt (pg_ctl -m immediate), resume. */
  command(name: "restart" | "halt" | "resume"): void;
  stop(): void;
}

export function startPostgresCluster(prefix: string): PostgresCluster {
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
    command: (name) => void execFileSync("bash", [POSTGRES, name, dir], { stdio: "inherit" }),
    stop: () => void execFileSync("bash", [POSTGRES, "stop", dir], { stdio: "inherit" }),
  };
}
