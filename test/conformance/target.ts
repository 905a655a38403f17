/**
 * The service a conformance run talks to. Imports nothing from provider/ or emulator/: the
 * emulator is started as a separate process through its command (`mgmt-emulator`, compiled to
 * dist/emulator/cli.js) and read from what it prints, like any other service.
 *
 * - `npm test`: the emulator, writes allowed, a second user for cross-user checks.
 * - `npm run conformance`: the service named by MGMT_BASE_URL, MGMT_USERNAME, MGMT_PASSWORD,
 *   MGMT_MESSAGING_URL, MGMT_REGIONAL_MESSAGING_URL, MGMT_MESSAGING_TOKEN (optional:
 *   MGMT_OTHER_USERNAME / MGMT_OTHER_PASSWORD, MGMT_CONFORMANCE_KEY, MGMT_CONFORMANCE_QUEUE);
 *   read-only endpoints unless CONFORMANCE_WRITES=1 (`npm run conformance -- --writes`). Changes to
 *   the user's existing messaging accounts that bill or revoke credentials (set-plan, which has no
 *   way back to free; the production pack; token rotation) also need CONFORMANCE_ACCOUNT_CHANGES=1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

export interface Target {
  kind: "emulator" | "service";
  baseUrl: string;
  messagingUrl: string;
  /** With the `{region}` placeholder. */
  regionalMessagingUrl: string;
  user: { username: string; password: string };
  otherUser?: { username: string; password: string };
  /** A messaging token and the region of its account. */
  messaging?: { token: string; region: string; otherRegion?: string };
  /** A flow control key and a queue that exist in that account. */
  key?: string;
  queue?: string;
  writes: boolean;
  stop(): Promise<void>;
}

/**
 * What a run may do, decided from the environment alone. `accountChanges`: change the user's
 * existing messaging accounts in ways that cost money or break their users (a plan upgrade, the
 * production pack, a token rotation): always against the emulator, on request against a service.
 */
export function planOf(env: NodeJS.ProcessEnv): { writes: boolean; key: boolean; accountChanges: boolean } {
  if (!env.MGMT_BASE_URL) return { writes: true, key: true, accountChanges: true };
  const writes = env.CONFORMANCE_WRITES === "1";
  return {
    writes,
    key: !!(env.MGMT_MESSAGING_TOKEN && env.MGMT_CONFORMANCE_KEY),
    accountChanges: writes && env.CONFORMANCE_ACCOUNT_CHANGES === "1",
  };
}

export async function conformanceTarget(): Promise<Target> {
  const env = process.env;
  if (env.MGMT_BASE_URL) {
    const required = (name: string) => {
      const v = env[name];
      if (!v) throw new Error(`conformance against a service needs ${name}`);
      return v;
    };
    return {
      kind: "service",
      baseUrl: required("MGMT_BASE_URL").replace(/\/+$/, ""),
      messagingUrl: (env.MGMT_MESSAGING_URL ?? "").replace(/\/+$/, ""),
      regionalMessagingUrl: (env.MGMT_REGIONAL_MESSAGING_URL ?? "").replace(/\/+$/, ""),
      user: { username: required("MGMT_USERNAME"), password: required("MGMT_PASSWORD") },
      otherUser:
        env.MGMT_OTHER_USERNAME && env.MGMT_OTHER_PASSWORD
          ? { username: env.MGMT_OTHER_USERNAME, password: env.MGMT_OTHER_PASSWORD }
          : undefined,
      messaging: env.MGMT_MESSAGING_TOKEN
        ? { token: env.MGMT_MESSAGING_TOKEN, region: env.MGMT_MESSAGING_REGION ?? "eu-central-1" }
        : undefined,
      key: env.MGMT_CONFORMANCE_KEY,
      queue: env.MGMT_CONFORMANCE_QUEUE,
      writes: env.CONFORMANCE_WRITES === "1",
      stop: async () => undefined,
    };
  }
  return startEmulatorProcess();
}

async function startEmulatorProcess(): Promise<Target> {
  const cli = path.resolve(__dirname, "../../dist/emulator/cli.js");
  const child = spawn(
    process.execPath,
    [cli, "--port", "0", "--key", "conformance-key=5", "--queue", "conformance-queue"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const printed = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      // The listing ends with the last user's accounts; bob is printed last.
      if (/user bob[\s\S]*account[\s\S]*account[\s\S]*account[\s\S]*account .* token \S+\n/.test(out)) resolve(out);
    });
    child.on("exit", (code) => reject(new Error(`mgmt-emulator exited with ${code} before it was ready:\n${out}`)));
  });
  const field = (label: string) => new RegExp(`${label}\\s+(\\S+)`).exec(printed)![1];
  const users = [...printed.matchAll(/user (\S+)\s+password (\S+)/g)].map((m) => ({ username: m[1], password: m[2] }));
  const accounts = [...printed.matchAll(/messaging account (\S+) (\S+) (\S+) token (\S+)/g)].map((m) => ({
    id: m[1],
    region: m[2],
    type: m[3],
    token: m[4],
  }));
  const first = accounts[0];
  return {
    kind: "emulator",
    baseUrl: field("mgmt:baseUrl"),
    messagingUrl: field("mgmt:messagingUrl"),
    regionalMessagingUrl: field("mgmt:regionalMessagingUrl"),
    user: users[0],
    otherUser: users[1],
    messaging: {
      token: first.token,
      region: first.region,
      otherRegion: accounts.find((a) => a.region !== first.region)?.region,
    },
    key: "conformance-key",
    queue: "conformance-queue",
    writes: true,
    stop: () => stopProcess(child),
  };
}

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.on("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
