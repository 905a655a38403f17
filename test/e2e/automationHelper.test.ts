/**
 * pulumi-mgmt/automation respects the user's choices: the backend (option, PULUMI_BACKEND_URL,
 * the project's backend.url, else a durable project-local folder), the secrets (option,
 * PULUMI_CONFIG_PASSPHRASE or _FILE, a recorded cloud provider, else a clear error), and offline
 * settings only when asked. Real stacks through the CLI.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SecretsProviderError, mgmtStack, type LeanSummary } from "../../provider/automation";

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
const saved = { ...process.env };
afterEach(() => {
  for (const k of ["PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_CONFIG_PASSPHRASE_FILE"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A project folder with a Pulumi.yaml, optionally naming its own backend. */
function project(backendUrl?: string): string {
  const dir = tempDir("mgmt-project-");
  writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: helper-test\nruntime: nodejs\n${backendUrl ? `backend:\n  url: ${backendUrl}\n` : ""}`,
  );
  return dir;
}
const program = async () => ({ answer: 42 });

test("a stack opened with another passphrase: one line that says so, and no --secret value of the failed command", async () => {
  const dir = project();
  const backendDir = tempDir("mgmt-state-");
  await mgmtStack({ workDir: dir, program, stackName: "twice", backendDir, passphrase: "the-first-one" });
  const attempt = mgmtStack({
    workDir: dir,
    program,
    stackName: "twice",
    backendDir,
    passphrase: "another-one",
    mgmt: { username: "alice", password: "hunter2-secret-pw" },
  });
  const message = await attempt.then(
    () => "",
    (err: Error) => err.message,
  );
  expect(message).toBe(
    'could not set the config of stack "twice": incorrect passphrase (stack "twice" was created with another passphrase: use that one, or another stack or backend)',
  );
  expect(message).not.toContain("hunter2-secret-pw");
});

test("no secrets provider anywhere: a clear error naming what to set, before any stack exists", async () => {
  const dir = project();
  const attempt = mgmtStack({ workDir: dir, program, stackName: "nopass" });
  await expect(attempt).rejects.toThrow(SecretsProviderError);
  await expect(attempt).rejects.toThrow(
    /set PULUMI_CONFIG_PASSPHRASE \(or PULUMI_CONFIG_PASSPHRASE_FILE\), or pass \{ passphrase \} or \{ secretsProvider: "awskms:\/\/\.\.\."/,
  );
  expect(existsSync(path.join(dir, ".pulumi-state"))).toBe(false);
  expect(existsSync(path.join(dir, "Pulumi.nopass.yaml"))).toBe(false);
});

test("defaults: a durable project-local file:// backend, PULUMI_CONFIG_PASSPHRASE_FILE, no offline settings", async () => {
  const dir = project();
  const file = path.join(tempDir("mgmt-pass-"), "passphrase");
  writeFileSync(file, "from-a-file\n");
  process.env.PULUMI_CONFIG_PASSPHRASE_FILE = file;
  const s = await mgmtStack({ workDir: dir, program, stackName: "local" });
  expect(s.backendUrl).toBe(`file://${path.join(dir, ".pulumi-state")}`);
  expect(s.backendDir).toBe(path.join(dir, ".pulumi-state"));
  expect(s.stack.workspace.envVars.PULUMI_SKIP_UPDATE_CHECK).toBeUndefined();
  expect(s.stack.workspace.envVars.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION).toBeUndefined();
  expect(s.stack.workspace.envVars.PULUMI_CONFIG_PASSPHRASE).toBeUndefined();
  await s.stack.setConfig("greeting", { value: "hello", secret: true });
  // Encrypted with the file's passphrase: a different one cannot read it back.
  expect(readFileSync(path.join(dir, "Pulumi.local.yaml"), "utf8")).toMatch(/secure: /);
  expect((await s.stack.getConfig("greeting")).value).toBe("hello");
  delete process.env.PULUMI_CONFIG_PASSPHRASE_FILE;
  process.env.PULUMI_CONFIG_PASSPHRASE = "another";
  const again = await mgmtStack({ workDir: dir, program, stackName: "local" });
  await expect(again.stack.getConfig("greeting")).rejects.toThrow(/passphrase/i);
});

test("PULUMI_BACKEND_URL wins over the project's backend.url; the project's wins over the default; an option wins over both", async () => {
  process.env.PULUMI_CONFIG_PASSPHRASE = "test-only";
  const projectBackend = tempDir("mgmt-project-backend-");
  const dir = project(`file://${projectBackend}`);
  const fromProject = await mgmtStack({ workDir: dir, stackName: "p" });
  expect(fromProject.backendUrl).toBe(`file://${projectBackend}`);
  expect(
    existsSync(path.join(projectBackend, ".pulumi/stacks/helper-test/p.json")) ||
      existsSync(path.join(projectBackend, ".pulumi")),
  ).toBe(true);

  const envBackend = tempDir("mgmt-env-backend-");
  process.env.PULUMI_BACKEND_URL = `file://${envBackend}`;
  expect((await mgmtStack({ workDir: dir, stackName: "e" })).backendUrl).toBe(`file://${envBackend}`);

  const optionBackend = tempDir("mgmt-option-backend-");
  const s = await mgmtStack({ workDir: dir, stackName: "o", backendUrl: `file://${optionBackend}`, offline: true });
  expect(s.backendUrl).toBe(`file://${optionBackend}`);
  expect(s.stack.workspace.envVars.PULUMI_SKIP_UPDATE_CHECK).toBe("true");
  expect(existsSync(path.join(optionBackend, ".pulumi"))).toBe(true);
});

test("an inline program's Pulumi.yaml names a postgres:// backend without its password; the CLIs get the whole URL", async () => {
  const dir = tempDir("mgmt-inline-");
  const url = "postgres://fleet:s3cret-pw@127.0.0.1:1/pulumi?sslmode=disable&password=other-pw";
  // `known`: no CLI command runs, as none could reach this database.
  const s = await mgmtStack({ workDir: dir, program, stackName: "pg", backendUrl: url, passphrase: "x", known: true });
  const file = readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
  expect(file).toMatch(/url: postgres:\/\/fleet@127\.0\.0\.1:1\/pulumi\?sslmode=disable\n/);
  expect(file).not.toMatch(/s3cret|other-pw/);
  expect(s.stack.workspace.envVars.PULUMI_BACKEND_URL).toBe(url);
});

test("the stack's up, refresh and destroy answer as the SDK's, with one CLI command (two with a secret output) instead of four", async () => {
  const dir = project();
  const secretOut = { value: "plain" as unknown };
  const withOutputs = async () => ({
    answer: 42,
    nested: { list: [1, "two"] },
    token: secretOut.value,
    inner: { deep: secretOut.value === "plain" ? "deep" : secretOf("deep-secret") },
  });
  const s = await mgmtStack({
    workDir: dir,
    program: withOutputs,
    stackName: "lean",
    backendDir: tempDir("mgmt-state-"),
    passphrase: "test-only",
    offline: true,
  });
  const commands: string[] = [];
  // The SDK runs every CLI command through this method (not in its typings).
  const cli = s.stack.workspace.pulumiCommand as unknown as {
    run: (args: string[], ...rest: unknown[]) => Promise<unknown>;
  };
  const run = cli.run.bind(cli);
  cli.run = (args, ...rest) => {
    commands.push(args.slice(0, args[0] === "stack" ? 2 : 1).join(" "));
    return run(args, ...rest);
  };
  const count = async <T>(op: () => Promise<T>): Promise<[T, string[]]> => {
    commands.length = 0;
    const result = await op();
    return [result, [...commands]];
  };

  const [leanPlain, leanPlainCmds] = await count(() => s.up());
  const [sdkPlain, sdkPlainCmds] = await count(() => s.stack.up());
  secretOut.value = secretOf("s3cr3t-token");
  const [leanSecret, leanSecretCmds] = await count(() => s.up());
  const [sdkSecret] = await count(() => s.stack.up());
  expect(leanPlainCmds).toEqual(["up"]);
  expect(leanSecretCmds).toEqual(["up", "stack export"]);
  expect(sdkPlainCmds).toEqual(["up", "stack output", "stack output", "stack history"]);
  expect(leanPlain.outputs).toEqual(sdkPlain.outputs);
  expect(leanSecret.outputs).toEqual(sdkSecret.outputs);
  expect(leanSecret.outputs.token).toEqual({ value: "s3cr3t-token", secret: true });
  expect(leanSecret.outputs.inner).toEqual({ value: { deep: "deep-secret" }, secret: false });
  expect(leanPlain.summary.resourceChanges).toEqual({ create: 1 });
  expect(leanSecret.summary).toMatchObject({
    kind: "update",
    result: "succeeded",
    resourceChanges: sdkSecret.summary.resourceChanges,
  });
  // The engine's summary, not a history entry: no version or message to make up.
  expect(Object.keys(leanSecret.summary).sort()).toEqual(["endTime", "kind", "resourceChanges", "result", "startTime"]);

  const [refresh, refreshCmds] = await count(() => s.refresh());
  expect(refreshCmds).toEqual(["refresh"]);
  expect(refresh.summary).toMatchObject({ kind: "refresh", result: "succeeded", resourceChanges: { same: 1 } });
  await expectAsRecorded(refresh.summary);
  const [destroy, destroyCmds] = await count(() => s.destroy());
  expect(destroyCmds).toEqual(["destroy"]);
  expect(destroy.summary).toMatchObject({ kind: "destroy", result: "succeeded", resourceChanges: { delete: 1 } });
  await expectAsRecorded(destroy.summary);

  /** The summary agrees with the history entry the engine wrote for the same operation (its times to the second). */
  async function expectAsRecorded(summary: LeanSummary): Promise<void> {
    const entry = (await s.stack.info())!;
    expect(summary).toEqual({
      kind: entry.kind,
      result: entry.result,
      resourceChanges: entry.resourceChanges,
      startTime: expect.any(Date),
      endTime: expect.any(Date),
    });
    expect(Math.abs(summary.startTime.getTime() - entry.startTime.getTime())).toBeLessThanOrEqual(2000);
    expect(Math.abs(summary.endTime.getTime() - entry.endTime.getTime())).toBeLessThanOrEqual(2000);
  }
});

function secretOf<T>(value: T) {
  return (require("@pulumi/pulumi") as typeof import("@pulumi/pulumi")).secret(value);
}
