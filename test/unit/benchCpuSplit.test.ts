/**
 * The bench's split of a fleet's CPU by process (bench/cpuSplit.ts): a server's children found by
 * their parent, and a server's CPU as its own, what it reaped, and what its live children used.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { childStats, serverTicks } from "../../bench/cpuSplit";
import { statFields, statTicks } from "../../bench/pluginLeg";

// pid (comm) state ppid ... utime(14) stime(15) cutime(16) cstime(17)
const stat = (pid: number, ppid: number, [u, s, cu, cs]: number[]) =>
  `${pid} (postgres: a (b)) S ${ppid} 1 1 0 -1 4194560 0 0 0 0 ${u} ${s} ${cu} ${cs} 20 0 1 0 100 0 0\n`;

describe("childStats", () => {
  let proc: string;
  beforeAll(() => {
    proc = mkdtempSync(path.join(tmpdir(), "proc-"));
    const entry = (name: string, text?: string) => {
      mkdirSync(path.join(proc, name));
      if (text !== undefined) writeFileSync(path.join(proc, name, "stat"), text);
    };
    entry("10", stat(10, 1, [5, 5, 0, 0]));
    entry("11", stat(11, 10, [1, 2, 3, 4]));
    entry("12", stat(12, 10, [0, 1, 0, 0]));
    entry("13", stat(13, 11, [9, 9, 9, 9]));
    entry("14"); // gone between the listing and the read
    entry("self", stat(99, 10, [7, 7, 7, 7]));
  });
  afterAll(() => rmSync(proc, { recursive: true, force: true }));

  it("finds the processes whose parent is the server, not its grandchildren, skipping what is gone or not a pid", () => {
    expect(childStats(10, proc).map((s) => Number(s.split(" ")[0]))).toEqual([11, 12]);
  });
});

describe("serverTicks", () => {
  it("adds the server's own ticks, those it reaped and those of its live children", async () => {
    const server = spawn("sleep", ["30"]);
    try {
      await new Promise((r) => server.once("spawn", r));
      // Until `sleep` sleeps, its exec still adds ticks: read them once they hold still.
      const read = () => readFileSync(`/proc/${server.pid}/stat`, "utf8");
      let before = read();
      for (let now = read(); statFields(now)[0] !== "S" || now !== before; now = read()) {
        before = now;
        await new Promise((r) => setTimeout(r, 20));
      }
      const own = statTicks(before);
      const live = [stat(2, server.pid!, [1, 2, 3, 4]), stat(3, server.pid!, [10, 0, 0, 0])];
      expect(serverTicks(server.pid!, live)).toBe(own.own + own.children + 10 + 10);
    } finally {
      server.kill();
    }
  });
});
