/**
 * What the fleet reads of Pulumi's self-managed backend (fleet/adapters/pulumiBackend.ts), held to
 * each supported Pulumi CLI built on this machine, on a file:// folder and on postgres:// rows: the
 * CLI takes a stack's lock for an update, and the adapter finds it with its holder (this host, this
 * user, the CLI's pid); the lock is gone once the update ends. A CLI killed in the middle leaves its
 * lock, which the adapter deletes alone, and the CLI then runs the stack again unhindered.
 *
 * The supported CLIs are the matrix's (test/matrix/compat.test.ts): 3.139.0, the repository's own
 * and 3.259.0. The repository's is always here (scripts/setup.sh); the others run where
 * `npm run test:matrix` has built them (scripts/ensure-pulumi.sh's cache).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir, userInfo } from "node:os";
import path from "node:path";
import { cliEnv, PACKAGE_ROOT, pulumiCliDir } from "../../provider/automation";
import { deleteDeadRunsLock, readStackLocks, type StackLock } from "../../fleet/adapters/pulumiBackend";
import { firstArgument } from "../../fleet/adapters/linuxProc";
import { alive, killTree } from "../../fleet/processes";
import { startPostgres, type TestPostgres } from "../support/postgres";

const PROJECT = "tenants";
const cache =
  process.env.PULUMI_MGMT_CACHE ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(userInfo().homedir, ".cache"), "pulumi-mgmt");
/** Each supported CLI found here: its folder (holding `pulumi` and its Node.js language host). */
const CLIS: [string, string][] = [
  ["the repository's", pulumiCliDir()],
  ...["3.139.0", "3.259.0"]
    .map((v): [string, string] => [v, path.join(cache, `pulumi-v${v}`, "bin")])
    .filter(([, dir]) => existsSync(path.join(dir, "pulumi"))),
];

let pg: TestPostgres;
let work: string;
beforeAll(() => {
  pg = startPostgres();
  work = mkdtempSync(path.join(tmpdir(), "pulumi-backend-"));
});
/** The CLIs started here: a test that fails while one waits for its gate ends it, and its program, at the end. */
const started: number[] = [];
afterAll(() => {
  for (const pid of started) if (alive(pid)) killTree(pid, true);
  pg?.stop();
  rmSync(work, { recursive: true, force: true });
});

/**
 * A project whose program (a Node.js program of its own, in the CLI's language host) ends only
 * once its gate file exists: the CLI's `up` holds the stack's lock meanwhile.
 */
function project(cliDir: string, backendUrl: string, stack: string) {
  const dir = mkdtempSync(path.join(work, "project-"));
  writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${PROJECT}\nruntime: nodejs\n`);
  writeFileSync(
    path.join(dir, "index.js"),
    `const fs = require("fs");\nmodule.exports = (async () => { while (!fs.existsSync(process.env.GATE)) await new Promise((r) => setTimeout(r, 100)); })();\n`,
  );
  symlinkSync(path.join(PACKAGE_ROOT, "node_modules"), path.join(dir, "node_modules"));
  let round = 0;
  const env = (gate: string): NodeJS.ProcessEnv => ({
    ...process.env,
    ...cliEnv(true),
    PATH: `${cliDir}${path.delimiter}${process.env.PATH ?? ""}`,
    PULUMI_BACKEND_URL: backendUrl,
    PULUMI_CONFIG_PASSPHRASE: "test-only-passphrase",
    PULUMI_HOME: path.join(dir, ".pulumi-home"),
    GATE: gate,
  });
  const pulumi = path.join(cliDir, "pulumi");
  const init = spawnSync(pulumi, ["stack", "init", stack, "--non-interactive"], {
    cwd: dir,
    env: env(""),
    encoding: "utf8",
  });
  if (init.status !== 0) throw new Error(`pulumi stack init: ${init.stderr}`);
  return {
    /** Starts an `up` that holds the lock until `open()`; `done` is its exit status and output. */
    upHeld() {
      const gate = path.join(dir, `gate-${++round}`);
      const child = spawn(pulumi, ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", stack], {
        cwd: dir,
        env: env(gate),
      });
      started.push(child.pid!);
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      const done = new Promise<{ code: number | null; out: string }>((resolve) =>
        child.on("close", (code) => resolve({ code, out })),
      );
      return { pid: child.pid!, done, open: () => writeFileSync(gate, "") };
    },
  };
}

async function lockOf(backendUrl: string, name: string): Promise<StackLock> {
  for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const locks = await readStackLocks(backendUrl, PROJECT, name);
    if (locks && locks.length > 0) {
      expect(locks).toHaveLength(1);
      return locks[0];
    }
  }
  throw new Error(`no lock of ${PROJECT}/${name} found in ${backendUrl.replace(/\/\/[^@/]*@/, "//")}`);
}

describe.each(CLIS)("the Pulumi CLI (%s, %s)", (_, cliDir) => {
  test.each(["file", "postgres"])(
    "on a %s backend, its lock is found with its holder while it updates, and gone after; a killed CLI's lock is deleted alone, and the stack runs again",
    async (kind) => {
      const name = `s${CLIS.findIndex(([, d]) => d === cliDir)}${kind[0]}`;
      const backendUrl = kind === "file" ? `file://${mkdtempSync(path.join(work, "state-"))}` : pg.url;
      const p = project(cliDir, backendUrl, name);
      expect(await readStackLocks(backendUrl, PROJECT, name)).toEqual([]);

      // An update holds the lock, which names this host, this user and the CLI's own pid.
      const first = p.upHeld();
      const lock = await lockOf(backendUrl, name);
      expect(lock.holder).toEqual({
        pid: first.pid,
        username: userInfo().username,
        hostname: hostname(),
        timestamp: expect.any(String),
      });
      expect(Math.abs(Date.now() - Date.parse(lock.holder.timestamp))).toBeLessThan(120_000);
      expect(alive(lock.holder.pid)).toBe(true);
      expect(path.basename(firstArgument(lock.holder.pid) ?? "")).toBe("pulumi");
      first.open();
      expect((await first.done).code).toBe(0);
      expect(await readStackLocks(backendUrl, PROJECT, name)).toEqual([]);

      // The CLI killed in the middle (with its language host) leaves its lock: deleted, alone, and the next update runs.
      const second = p.upHeld();
      const left = await lockOf(backendUrl, name);
      expect(left.holder.pid).toBe(second.pid);
      killTree(second.pid, true);
      expect((await second.done).code).not.toBe(0);
      expect(await readStackLocks(backendUrl, PROJECT, name)).toEqual([left]);
      await deleteDeadRunsLock(backendUrl, left);
      expect(await readStackLocks(backendUrl, PROJECT, name)).toEqual([]);
      const third = p.upHeld();
      third.open();
      const after = await third.done;
      expect(after.out).not.toMatch(/locked/);
      expect(after.code).toBe(0);
    },
    120_000,
  );
});
