/**
 * The pids of a run's Pulumi CLIs, recorded as each starts: the bound CLI's wrapper appends its
 * pid to a file (automation/boundCli.ts), and this copies each new one to the run's record, where
 * a later run finds it when it must tell a dead run's Pulumi lock from anyone else's (stackLock.ts).
 * The CLI takes its lock only after loading its backend and stack, which takes far longer than
 * one look here.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const EVERY_MS = 100;

export interface PidRecorder {
  /** A last look, then no more. */
  stop(): Promise<void>;
}

/** Starts watching `file` (emptied first) and hands each new pid to `record`. */
export function recordCliPids(file: string, record: (pids: number[]) => Promise<void>): PidRecorder {
  writeFileSync(file, "");
  const seen = new Set<number>();
  let busy: Promise<void> = Promise.resolve();
  const look = () => {
    busy = busy.then(async () => {
      if (!existsSync(file)) return;
      const found = readFileSync(file, "utf8")
        .split("\n")
        .map(Number)
        .filter((pid) => Number.isInteger(pid) && pid > 0 && !seen.has(pid));
      if (found.length === 0) return;
      for (const pid of found) seen.add(pid);
      // A record that fails (the database away) leaves the lock unproven: waited for, never broken.
      await record(found).catch(() => {
        for (const pid of found) seen.delete(pid); // tried again at the next look
      });
    });
    return busy;
  };
  const timer = setInterval(() => void look(), EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await look();
    },
  };
}
