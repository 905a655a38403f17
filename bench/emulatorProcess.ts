/**
 * The emulator in a process of its own, for benchmarks. In the driver's process its answers
 * would wait for the driver's event loop, busy with the inline program and the Automation API's
 * event stream: every request would cost more than the latency it is given, and the gap to the
 * sleep-only baseline would measure the bench rig, not pulumi-mgmt. The real service is remote.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

export interface EmulatorProcess {
  pid: number;
  baseUrl: string;
  messagingUrl: string;
  regionalMessagingUrl: string;
  /** Empties the emulator, sets the latency added to every request, returns the first user and the token of its free eu-central-1 messaging account. */
  reset(latencyMs: number): Promise<{ username: string; password: string; messagingToken: string }>;
  close(): Promise<void>;
}

export async function startEmulatorProcess(): Promise<EmulatorProcess> {
  const cli = path.join(__dirname, "..", "emulator", "cli.js");
  const child: ChildProcess = spawn(process.execPath, [cli, "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  const seen: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`mgmt-emulator exited with ${code} before it listened`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = /^\s+(mgmt:\w+|test controls)\s+(\S+)/.exec(line);
      if (m) seen[m[1]] = m[2];
      if (seen["test controls"] && seen["mgmt:regionalMessagingUrl"]) resolve();
    });
  });
  const controls = seen["test controls"].replace(/\/$/, "");
  const post = async (route: string, body?: unknown) => {
    const res = await fetch(`${controls}/${route}`, {
      method: "POST",
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`emulator control ${route}: ${res.status} ${await res.text()}`);
  };
  return {
    pid: child.pid!,
    baseUrl: seen["mgmt:baseUrl"],
    messagingUrl: seen["mgmt:messagingUrl"],
    regionalMessagingUrl: seen["mgmt:regionalMessagingUrl"],
    async reset(latencyMs) {
      await post("reset");
      await post("latency", { ms: latencyMs });
      const users = (await (await fetch(`${controls}/users`)).json()) as {
        username: string;
        password: string;
        accounts: { region: string; type: string; token: string }[];
      }[];
      const account = users[0].accounts.find((a) => a.region === "eu-central-1" && a.type === "free");
      if (!account) throw new Error("the emulator's first user has no free eu-central-1 messaging account");
      return { username: users[0].username, password: users[0].password, messagingToken: account.token };
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
