/**
 * Pulumi's lock of a stack (fleet/stackLock.ts) on a file:// backend, laid out as the
 * DIY backend writes it: broken only when it is provably a dead run's own, anyone else's waited
 * for (and said so, and shown as a note) and never broken; and the bound CLI's pids, recorded as
 * each starts (fleet/cliPids.ts).
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { recordCliPids } from "../../fleet/cliPids";
import { readStackLocks, type LockHolder } from "../../fleet/adapters/pulumiBackend";
import { settleStackLock } from "../../fleet/stackLock";

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), "stack-lock-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const holder = (pid: number, hostname: string): LockHolder => ({
  pid,
  username: "ana",
  hostname,
  timestamp: "2026-11-25T10:00:00Z",
});
function lock(h: LockHolder): string {
  const at = path.join(dir, ".pulumi/locks/organization/tenants/t03");
  mkdirSync(at, { recursive: true });
  const file = path.join(at, "5e1c.json");
  writeFileSync(file, JSON.stringify(h));
  return file;
}

test("a lock naming a dead run's host and CLI pid is broken, exactly that one, saying so", async () => {
  const file = lock(holder(4242, "worker-1"));
  const lines: string[] = [];
  const refusal = await settleStackLock({
    backendUrl: `file://${dir}`,
    project: "tenants",
    stack: "t03",
    isDeadRunsOwn: (h) => h.hostname === "worker-1" && h.pid === 4242,
    waitMs: 60_000,
    notice: (l) => lines.push(l),
  });
  expect(refusal).toBeUndefined();
  expect(existsSync(file)).toBe(false);
  expect(lines).toEqual([
    "broke the stale Pulumi lock of stack tenants/t03 left by a run that is over (ana@worker-1 (pid 4242, since 2026-11-25T10:00:00Z))",
  ]);
});

test("anyone else's lock is waited for, said in the log and the status note, and never broken: one line naming the holder after the bound", async () => {
  const file = lock(holder(4243, "worker-1")); // the dead run's host, but not a pid its CLI had
  const lines: string[] = [];
  const notes: (string | undefined)[] = [];
  const refusal = await settleStackLock({
    backendUrl: `file://${dir}`,
    project: "tenants",
    stack: "t03",
    isDeadRunsOwn: (h) => h.pid === 4242,
    waitMs: 1500,
    notice: (l) => lines.push(l),
    note: (n) => void notes.push(n),
  });
  expect(refusal).toBe(
    "Pulumi's lock of stack tenants/t03 is held by ana@worker-1 (pid 4243, since 2026-11-25T10:00:00Z), not by a run of the fleet: waited 2s; let that update finish, or run `pulumi cancel --stack t03` once sure its process is gone",
  );
  expect(refusal).not.toMatch(/\n/);
  expect(existsSync(file)).toBe(true);
  expect(lines).toEqual([
    expect.stringMatching(
      /^Pulumi's lock of stack tenants\/t03 is held by ana@worker-1 \(pid 4243, .*\), not by a run of the fleet: waiting up to 2s for it to be released \(never broken\)$/,
    ),
  ]);
  expect(notes).toEqual([
    "waiting for Pulumi's lock, held by ana@worker-1 (pid 4243, since 2026-11-25T10:00:00Z)",
    undefined,
  ]);
});

test("a lock released while the run waits lets it go on", async () => {
  const file = lock(holder(7, "laptop"));
  setTimeout(() => unlinkSync(file), 1200);
  const refusal = await settleStackLock({
    backendUrl: `file://${dir}`,
    project: "tenants",
    stack: "t03",
    isDeadRunsOwn: () => false,
    waitMs: 30_000,
    notice: () => undefined,
  });
  expect(refusal).toBeUndefined();
});

test("no lock, another stack's lock, and a backend whose locks cannot be read from here: nothing to settle", async () => {
  expect(await readStackLocks(`file://${dir}`, "tenants", "t03")).toEqual([]);
  lock(holder(7, "laptop"));
  expect(await readStackLocks(`file://${dir}`, "tenants", "t04")).toEqual([]);
  expect(await readStackLocks("s3://bucket", "tenants", "t03")).toBeUndefined();
  // A relative folder: the CLI finds it from its own working directory, so its locks are not read
  // (nor broken) from this process's, though a lock is there from here.
  expect(await readStackLocks(`file://${dir}`, "tenants", "t03")).toHaveLength(1);
  expect(await readStackLocks(`file://${path.relative(process.cwd(), dir)}`, "tenants", "t03")).toBeUndefined();
});

test("each CLI's pid is recorded once, as it starts", async () => {
  const file = path.join(dir, "pids");
  const recorded: number[][] = [];
  const recorder = recordCliPids(file, async (pids) => void recorded.push(pids));
  appendFileSync(file, "101\n");
  await new Promise((r) => setTimeout(r, 300));
  appendFileSync(file, "102\n");
  await recorder.stop();
  expect(recorded).toEqual([[101], [102]]);
});
