/**
 * The emulator as a user starts it (`mgmt-emulator`, i.e. dist/emulator/cli.js): `--env` prints
 * shell exports a POSIX shell can load and that reach the running emulator, and a taken port
 * fails at once with one line saying what to do.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { SETTINGS_KEYS } from "../../provider/config";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "dist/emulator/cli.js");
const children: ChildProcess[] = [];
let blocker: Server | undefined;

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
});

function start(args: string[]): { child: ChildProcess; out: { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (d: Buffer) => (out.stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out.stderr += d.toString()));
  return { child, out };
}

async function until(what: string, done: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const EXPORTED = [
  SETTINGS_KEYS.baseUrl,
  SETTINGS_KEYS.messagingUrl,
  SETTINGS_KEYS.regionalMessagingUrl,
  SETTINGS_KEYS.username,
  SETTINGS_KEYS.password,
  SETTINGS_KEYS.messagingToken,
].map((k) => k.env);

test("--env prints only shell exports that load in sh and bash and reach the running emulator", async () => {
  // A quote in the password: the values must survive the shell's quoting.
  const password = "it's a 'secret' $HOME";
  const { child, out } = start(["--port", "0", "--env", "--password", password]);
  await until("the exports and the listing", () => {
    if (child.exitCode !== null) throw new Error(`mgmt-emulator exited with ${child.exitCode}: ${out.stderr}`);
    return (
      out.stdout.includes(`${SETTINGS_KEYS.messagingToken.env}=`) &&
      (out.stdout + out.stderr).includes("messaging account")
    );
  });
  expect(child.exitCode).toBeNull(); // it keeps running after printing

  const lines = out.stdout.trimEnd().split("\n");
  for (const line of lines) expect(line).toMatch(/^export [A-Z_]+='.*'$/);
  expect(lines.map((l) => /^export ([A-Z_]+)=/.exec(l)?.[1])).toStrictEqual(EXPORTED);
  expect(out.stderr).toMatch(/^mgmt-emulator listening on http:\/\/127\.0\.0\.1:\d+/m);

  const dump = `node -e 'process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("MGMT_")))))'`;
  const loaded = (shell: string) =>
    JSON.parse(execFileSync(shell, ["-c", `eval "$1"\n${dump}`, shell, out.stdout], { encoding: "utf8" })) as Record<
      string,
      string
    >;
  const env = loaded("bash");
  expect(loaded("sh")).toEqual(env);
  expect(Object.keys(env).sort()).toEqual([...EXPORTED].sort());
  expect(env.MGMT_PASSWORD).toBe(password);
  expect(env.MGMT_REGIONAL_MESSAGING_URL).toContain("{region}");

  // The first seeded user and its first eu-central-1 messaging account.
  const users = (await (await fetch(`${env.MGMT_BASE_URL}/_emulator/users`)).json()) as {
    username: string;
    accounts: { region: string; token: string }[];
  }[];
  expect(env.MGMT_USERNAME).toBe(users[0].username);
  expect(env.MGMT_MESSAGING_TOKEN).toBe(users[0].accounts.find((a) => a.region === "eu-central-1")!.token);

  const basic = `Basic ${Buffer.from(`${env.MGMT_USERNAME}:${env.MGMT_PASSWORD}`).toString("base64")}`;
  const bearer = `Bearer ${env.MGMT_MESSAGING_TOKEN}`;
  expect((await fetch(`${env.MGMT_BASE_URL}/v2/search`, { headers: { authorization: basic } })).status).toBe(200);
  expect((await fetch(`${env.MGMT_BASE_URL}/v2/search`, { headers: { authorization: "Basic eDp5" } })).status).toBe(
    401,
  );
  expect(
    (await fetch(`${env.MGMT_MESSAGING_URL}/v2/globalParallelism`, { headers: { authorization: bearer } })).status,
  ).toBe(200);
  const regional = env.MGMT_REGIONAL_MESSAGING_URL.replace("{region}", "eu-central-1");
  expect((await fetch(`${regional}/v2/queues`, { headers: { authorization: bearer } })).status).toBe(200);
});

test('--pid-file: a script (no job control) stops it with kill "$(cat FILE)"; restarted on the same --data with --port 0 it keeps every exported value', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "mgmt-emulator-"));
  const [pidFile, data] = [path.join(dir, "emulator.pid"), path.join(dir, "state.json")];
  const args = ["--port", "0", "--data", data, "--pid-file", pidFile, "--env"];
  const exportsOf = async (run: ReturnType<typeof start>) => {
    await until(
      "the exports",
      () => run.out.stdout.includes(`${SETTINGS_KEYS.messagingToken.env}=`) && existsSync(pidFile),
    );
    return run.out.stdout;
  };
  try {
    const first = start(args);
    const exported = await exportsOf(first);
    expect(readFileSync(pidFile, "utf8").trim()).toBe(String(first.child.pid));
    // What docs/emulator.md tells a script to run: sh -c has no job control, so no %1.
    execFileSync("sh", ["-c", `kill "$(cat '${pidFile}')"`]);
    await until("the emulator to stop", () => first.child.exitCode !== null);
    expect(first.child.exitCode).toBe(0);
    expect(existsSync(pidFile)).toBe(false);

    const second = start(args);
    expect(await exportsOf(second)).toBe(exported); // address (so port), user, password, token
    execFileSync("sh", ["-c", `kill "$(cat '${pidFile}')"`]);
    await until("the emulator to stop", () => second.child.exitCode !== null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a port in use fails at once with one line and exit code 1", async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker!.listen(0, "127.0.0.1", resolve));
  const port = (blocker.address() as { port: number }).port;
  const started = Date.now();
  const { child, out } = start(["--port", String(port), "--env"]);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(code).toBe(1);
  expect(out.stdout).toBe("");
  expect(out.stderr).toBe(
    `mgmt-emulator: port ${port} on 127.0.0.1 is already in use: stop the other process or pass --port 0 for a free one\n`,
  );
});

test("--help documents --env", () => {
  const help = execFileSync(process.execPath, [CLI, "--help"], { encoding: "utf8" });
  expect(help).toMatch(/^\s+--env\s/m);
  expect(help).toContain("> emulator.env &");
});
