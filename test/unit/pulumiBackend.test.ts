/**
 * What the fleet reads of Pulumi's self-managed backend (fleet/adapters/pulumiBackend.ts), held to
 * each supported Pulumi CLI, on a file:// folder and on postgres:// rows.
 *
 * Live, with each supported CLI built on this machine: the CLI takes a stack's lock for an update,
 * and the adapter finds it with its holder (this host, this user, the CLI's pid); the lock is gone
 * once the update ends. A CLI killed in the middle leaves its lock, which the adapter deletes
 * alone, and the CLI then runs the stack again unhindered. What the CLI wrote (the lock's path and
 * text, the table's columns and row) must be its version's recorded layout
 * (test/fixtures/pulumiBackendLayouts.json; PULUMI_MGMT_RECORD_BACKEND_LAYOUTS=1 records it).
 *
 * Recorded, for every supported CLI: each version's layout is laid out again as that CLI wrote it,
 * and the adapter finds the lock with its holder and deletes it alone. So `npm test` holds the
 * adapter to every supported version, though it builds only the repository's CLI.
 *
 * The supported CLIs are the matrix's (test/matrix/compat.test.ts): 3.139.0, the repository's own
 * and 3.259.0. The repository's is always here (scripts/setup.sh); the others run live where
 * `npm run test:matrix` has built them (scripts/ensure-pulumi.sh's cache).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, hostname, tmpdir, userInfo } from "node:os";
import path from "node:path";
import { cliEnv, PACKAGE_ROOT, pulumiCliDir } from "../../provider/automation";
import { deleteDeadRunsLock, readStackLocks, type StackLock } from "../../fleet/adapters/pulumiBackend";
import { firstArgument } from "../../fleet/adapters/linuxProc";
import { alive, killTree } from "../../fleet/processes";
import { startPostgres, type TestPostgres } from "../support/postgres";

const PROJECT = "tenants";
/** The repository's own CLI, the version its Go workspace builds (scripts/gotools/go.mod). */
const REPOSITORY_CLI = /github\.com\/pulumi\/pulumi\/pkg\/v3 v(\d+\.\d+\.\d+)/.exec(
  readFileSync(path.join(PACKAGE_ROOT, "scripts/gotools/go.mod"), "utf8"),
)![1];
/** The supported CLIs: the matrix's floor, the repository's own and the newest built here. */
const SUPPORTED = ["3.139.0", REPOSITORY_CLI, "3.259.0"];
/** The first CLI with the postgres:// backend: an older one takes the address for Pulumi Cloud's and asks for a login. */
const POSTGRES_SINCE = "3.176.0";
const atLeast = (version: string, floor: string) => {
  const [a, b] = [version, floor].map((v) => v.split(".").map(Number));
  return a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] >= b[2];
};
const cache =
  process.env.PULUMI_MGMT_CACHE ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"), "pulumi-mgmt");
/** Each supported CLI found here: its folder (holding `pulumi` and its Node.js language host). */
const CLIS: [string, string][] = [
  ["the repository's", pulumiCliDir()],
  ...SUPPORTED.filter((v) => v !== REPOSITORY_CLI)
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

/**
 * What a CLI wrote while it held a stack's lock, its run's own values (stack, lock id, pid, user,
 * host, time) replaced by placeholders: the lock's path under the backend and its text; on
 * postgres://, the table's columns and the lock's row (its key, and its data column's text).
 */
interface Layout {
  file?: { lockPath: string; text: string };
  postgres?: { columns: string[]; key: string; data: string };
}
const LAYOUTS_FILE = path.join(__dirname, "../fixtures/pulumiBackendLayouts.json");
const layouts: Record<string, Layout> = JSON.parse(readFileSync(LAYOUTS_FILE, "utf8"));
/** MGMT_RECORD_BACKEND_LAYOUTS=1: the live runs write what each CLI wrote as its version's layout. */
const RECORD = process.env.MGMT_RECORD_BACKEND_LAYOUTS === "1";
afterAll(() => {
  if (RECORD) writeFileSync(LAYOUTS_FILE, `${JSON.stringify(layouts, null, 2)}\n`);
});

/** A run's own values in a CLI's text, as placeholders (the id: the lock file's name). */
function placeholders(text: string, stack: string, lock: StackLock): string {
  const id = path.basename(lock.where, ".json");
  return text
    .split(id)
    .join("<id>")
    .split(`/${stack}/`)
    .join("/<stack>/")
    .replace(`"pid":${lock.holder.pid}`, '"pid":"<pid>"')
    .replace(JSON.stringify(lock.holder.username), '"<username>"')
    .replace(JSON.stringify(lock.holder.hostname), '"<hostname>"')
    .replace(JSON.stringify(lock.holder.timestamp), '"<timestamp>"');
}

/** A recorded text with this run's values in place of its placeholders. */
function filled(text: string, v: { stack: string; id: string; pid: number; timestamp: string }): string {
  return text
    .split("<id>")
    .join(v.id)
    .split("/<stack>/")
    .join(`/${v.stack}/`)
    .replace('"pid":"<pid>"', `"pid":${v.pid}`)
    .replace('"<username>"', JSON.stringify(userInfo().username))
    .replace('"<hostname>"', JSON.stringify(hostname()))
    .replace('"<timestamp>"', JSON.stringify(v.timestamp));
}

/** What the CLI wrote for `lock` on this backend, with placeholders. */
async function layoutOf(kind: string, backendUrl: string, stack: string, lock: StackLock): Promise<Layout> {
  if (kind === "file") {
    const root = backendUrl.slice("file://".length);
    return {
      file: {
        lockPath: placeholders(path.relative(root, lock.where), stack, lock),
        text: placeholders(readFileSync(lock.where, "utf8"), stack, lock),
      },
    };
  }
  const columns = await pg.sql<{ column_name: string; data_type: string }>(
    "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'pulumi_state' ORDER BY ordinal_position",
  );
  const [row] = await pg.sql<{ data: string }>("SELECT data::text AS data FROM pulumi_state WHERE key = $1", [
    lock.where,
  ]);
  const text = Buffer.from(JSON.parse(row.data).data, "base64").toString("utf8");
  return {
    postgres: {
      columns: columns.map((c) => `${c.column_name} ${c.data_type}`),
      key: placeholders(lock.where, stack, lock),
      data: row.data.replace(JSON.parse(row.data).data, `<base64 of ${placeholders(text, stack, lock)}>`),
    },
  };
}

/** The CLI's version, from `pulumi version` in its folder. */
const versionOf = (cliDir: string) =>
  spawnSync(path.join(cliDir, "pulumi"), ["version"], { encoding: "utf8", env: { ...process.env, ...cliEnv(true) } })
    .stdout.trim()
    .replace(/^v/, "");

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
      const version = versionOf(cliDir);
      if (kind === "postgres" && !atLeast(version, POSTGRES_SINCE)) {
        expect(() => project(cliDir, backendUrl, name)).toThrow(/PULUMI_ACCESS_TOKEN must be set for login/);
        return;
      }
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
      // What this CLI wrote is its version's recorded layout, which the tests below lay out again.
      const layout = await layoutOf(kind, backendUrl, name, lock);
      if (RECORD) Object.assign((layouts[version] ??= {}), layout);
      else expect(layout).toEqual({ [kind]: layouts[version]?.[kind as keyof Layout] });
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

/**
 * Each supported CLI's recorded layout, laid out again as that CLI wrote it for a run that died
 * holding the lock: the adapter finds the lock with its holder, and deletes it alone (another
 * stack's lock stays).
 */
describe.each(SUPPORTED)("the lock as the Pulumi CLI %s writes it", (version) => {
  const dead = () => spawnSync(process.execPath, ["-e", ""]).pid!;
  const run = (stack: string) => ({
    stack,
    id: `${stack}-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`,
    pid: dead(),
    timestamp: new Date().toISOString(),
  });

  /**
   * Lays out a dead run's lock of stack "mine" and another stack's lock with `put`; the adapter
   * finds the first with its holder and deletes it. Returns where the other one is, to check it stays.
   */
  async function foundAndDeletedAlone(
    url: string,
    put: (v: ReturnType<typeof run>) => string | Promise<string>,
  ): Promise<string> {
    const mine = run("mine");
    const where = await put(mine);
    const other = await put(run("other"));
    const locks = await readStackLocks(url, PROJECT, "mine");
    expect(locks).toEqual([
      {
        where,
        holder: { pid: mine.pid, username: userInfo().username, hostname: hostname(), timestamp: mine.timestamp },
      },
    ]);
    await deleteDeadRunsLock(url, locks![0]);
    expect(await readStackLocks(url, PROJECT, "mine")).toEqual([]);
    return other;
  }

  test("on a file backend", async () => {
    const layout = layouts[version]?.file;
    expect(layout).toBeDefined();
    const root = mkdtempSync(path.join(work, "recorded-"));
    const url = `file://${root}`;
    const put = (v: ReturnType<typeof run>) => {
      const where = path.join(root, filled(layout!.lockPath, v));
      mkdirSync(path.dirname(where), { recursive: true });
      writeFileSync(where, filled(layout!.text, v));
      return where;
    };
    const other = await foundAndDeletedAlone(url, put);
    expect(existsSync(other)).toBe(true);
  });

  test("on a postgres backend (from 3.176.0 on)", async () => {
    const layout = layouts[version]?.postgres;
    // An older CLI has no postgres:// backend (the live test above sees it ask for a login).
    if (!atLeast(version, POSTGRES_SINCE)) return expect(layout).toBeUndefined();
    expect(layout).toBeDefined();
    const database = `recorded_${version.replace(/\./g, "_")}`;
    await pg.sql(`CREATE DATABASE ${database}`);
    const url = pg.url.replace(/\/pulumi\?/, `/${database}?`);
    await pg.sql(`CREATE TABLE pulumi_state (${layout!.columns.join(", ")})`, [], url);
    const put = async (v: ReturnType<typeof run>) => {
      const key = filled(layout!.key, v);
      const data = layout!.data.replace(/<base64 of (.*)>/s, (_, text: string) =>
        Buffer.from(filled(text, v)).toString("base64"),
      );
      await pg.sql("INSERT INTO pulumi_state (key, data) VALUES ($1, $2)", [key, data], url);
      return key;
    };
    const other = await foundAndDeletedAlone(url, put);
    expect((await pg.sql("SELECT key FROM pulumi_state", [], url)).map((r) => r.key)).toEqual([other]);
  });
});
