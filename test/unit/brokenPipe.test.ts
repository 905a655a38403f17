/**
 * A driver or worker whose output's reader went away (fleet/shutdown.ts) keeps working:
 * with an uncaught-exception handler that logs (as the Automation API's inline program server
 * installs one), every write to the broken pipe used to fail, be caught and logged, and fail
 * again, without end.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const SHUTDOWN = path.resolve(__dirname, "../../fleet/shutdown.ts");

async function run(withShutdown: boolean): Promise<{ code: number | null; caught: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), "broken-pipe-"));
  const script = `
    const fs = require("node:fs");
    let caught = 0;
    process.on("uncaughtException", (err) => { caught++; if (caught < 100000) console.error("uncaught:", err.message); });
    ${withShutdown ? `require(${JSON.stringify(SHUTDOWN)}).shutdown({ log: () => undefined });` : ""}
    let n = 0;
    const timer = setInterval(() => {
      console.log("line " + ++n);
      if (n === 30) { clearInterval(timer); fs.writeFileSync(${JSON.stringify(path.join(dir, "caught"))}, String(caught)); process.exit(0); }
    }, 20);
  `;
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", script], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  // The reader goes away after the first line.
  await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
  child.stdout!.destroy();
  child.stderr!.destroy();
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  let caught = -1;
  try {
    caught = Number(readFileSync(path.join(dir, "caught"), "utf8"));
  } catch {
    // it never got there
  }
  rmSync(dir, { recursive: true, force: true });
  return { code, caught };
}

test("a process whose output's reader went away keeps running, and no write failure reaches its uncaught-exception handler", async () => {
  expect(await run(true)).toEqual({ code: 0, caught: 0 });
}, 60_000);

test("(the loop it prevents: without it, each failed write is caught, logged, and fails again)", async () => {
  const { caught } = await run(false);
  expect(caught).toBeGreaterThan(30);
}, 60_000);
