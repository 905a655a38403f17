/**
 * A throw-away PostgreSQL cluster for a test file (scripts/postgres.sh installs PostgreSQL from
 * Debian's packages if needed); the script's own error (no root, no apt-get, ...) is the failure.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../../provider/automation";

const SCRIPT = path.join(PACKAGE_ROOT, "scripts/postgres.sh");

export interface TestPostgres {
  dir: string;
  /** postgres://... of its database, for Pulumi's backend and for node-postgres alike. */
  url: string;
  stop(): void;
  /** Restarts the server on the same port: every connection to it drops. */
  restart(): void;
}

export function startPostgres(): TestPostgres {
  const dir = mkdtempSync(path.join(tmpdir(), "pulumi-mgmt-pg-test-"));
  const url = execFileSync("bash", [SCRIPT, "start", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop()!;
  return {
    dir,
    url,
    stop: () => execFileSync("bash", [SCRIPT, "stop", dir], { stdio: "inherit" }),
    restart: () => execFileSync("bash", [SCRIPT, "restart", dir], { stdio: "inherit" }),
  };
}
