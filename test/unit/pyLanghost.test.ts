/**
 * scripts/pylanghost: a Python language host whose engine is gone ends by itself, as Pulumi's own
 * hosts do. A CLI killed with SIGKILL never stops its plugins, and a host left waiting for a run
 * that will never come would stay until the machine restarts.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { PACKAGE_ROOT } from "../../provider/automation";
import { pythonProofEnv } from "../support/frontDoors";

const host = path.join(PACKAGE_ROOT, "scripts/pylanghost/pulumi-language-python");

/** What `p` resolves to within `ms`, else `late`; the timer does not outlive the race. */
async function within<T>(p: Promise<T>, ms: number, late: string): Promise<T | string> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(late), ms)));
  try {
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

test("the host serves while its engine answers and exits once the engine is gone", async () => {
  const engine: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  const port = (engine.address() as { port: number }).port;
  const child = spawn(host, [`127.0.0.1:${port}`], {
    env: { ...process.env, VIRTUAL_ENV: pythonProofEnv() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // Its port on the first line: it serves.
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", () => reject(new Error("the host exited before it served")));
  });
  // Still serving after several checks while the engine answers.
  expect(await within(exited, 5_000, "alive")).toBe("alive");
  await new Promise<void>((resolve) => engine.close(() => resolve()));
  const after = await within(exited, 15_000, "still running");
  if (after === "still running") child.kill("SIGKILL");
  expect(after).toBe(0);
}, 60_000);
