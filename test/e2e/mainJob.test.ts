/**
 * The main job (`npm start`) end to end, as a separate process: it runs the root Pulumi.yaml
 * program through the language host (pulumi-language-nodejs) and TypeScript, not inline.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PACKAGE_ROOT } from "../../provider/automation";
import { startEmulator } from "../../emulator";
import { clientFor } from "../support/harness";

const run = promisify(execFile);
const stateDir = mkdtempSync(path.join(tmpdir(), "main-job-"));
const stack = `mainjob${process.pid}`;
const env = {
  ...process.env,
  PULUMI_MGMT_STATE_DIR: stateDir,
  PULUMI_MGMT_STACK: stack,
  MGMT_BASE_URL: "",
  MGMT_USERNAME: "",
  MGMT_PASSWORD: "",
};

function npmStart(args: string[] = [], extraEnv: Record<string, string> = {}) {
  return run("node", [path.join(PACKAGE_ROOT, "dist/scripts/main.js"), ...args], {
    cwd: PACKAGE_ROOT,
    env: { ...env, ...extraEnv },
    maxBuffer: 32 * 1024 * 1024,
  });
}

afterAll(() => {
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(path.join(PACKAGE_ROOT, `Pulumi.${stack}.yaml`), { force: true });
});

test("npm start: up on the embedded emulator, a table, a clean preview; a rerun changes nothing; --destroy tears down", async () => {
  const first = await npmStart();
  expect(first.stdout).toMatch(/using the embedded emulator at http:\/\/127\.0\.0\.1:\d+/);
  expect(first.stdout).toMatch(/\+ 8 created/);
  expect(first.stdout).toMatch(/^catalog\s+\S+\s+eu-west-1\s+payg\s+https:\/\/catalog-\S+\s+\[secret\]$/m);
  expect(first.stdout).toMatch(/^support-articles\s+\S+\s+us-central1\s+free/m);
  expect(first.stdout).toMatch(/^tenant-demo\s+false\s+42$/m);
  expect(first.stdout).toMatch(/preview: no changes \(8 resources unchanged\)/);
  const emulatorState = JSON.parse(readFileSync(path.join(stateDir, "emulator.json"), "utf8"));
  const tokens: string[] = emulatorState.indexes.map((i: { record: { token: string } }) => i.record.token);
  expect(tokens).toHaveLength(3);
  for (const t of tokens) expect(first.stdout).not.toContain(t);

  const second = await npmStart();
  expect(second.stdout).toMatch(/8 unchanged/);
  // No preview after an up that changed nothing: that up was the check.
  expect(second.stdout).toMatch(/no changes: this run's up found all 8 resources as declared/);
  expect(second.stdout).not.toMatch(/Checking that a second preview/);

  const destroyed = await npmStart(["--destroy", "--remove-stack"]);
  expect(destroyed.stdout).toMatch(/destroy: succeeded/);
  // The summary counts what was deleted, not the same resources again as unchanged.
  expect(destroyed.stdout).toMatch(/^\s+- \d+ deleted$/m);
  expect(destroyed.stdout).not.toMatch(/^\s+\d+ unchanged$/m);
  expect(destroyed.stdout).toContain(`stack "${stack}" removed`);
  expect(JSON.parse(readFileSync(path.join(stateDir, "emulator.json"), "utf8")).indexes).toEqual([]);
  // Gone from the project's backend and its config file with it: a new `npm start` begins afresh.
  expect(existsSync(path.join(PACKAGE_ROOT, `Pulumi.${stack}.yaml`))).toBe(false);
  expect(
    readdirSync(stateDir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(`/${stack}.json`)),
  ).toEqual([]);
});

test("with MGMT_BASE_URL and credentials, the same command runs against that service and says so", async () => {
  const service = await startEmulator();
  const alice = service.users[0];
  for (const account of service.emulator.data.accounts) {
    account.keys["tenant-demo"] = { waitListSize: 7, paused: false, rateResets: 0 };
    account.queues["emails"] = { paused: true, resumes: 0 };
  }
  const serviceEnv = {
    MGMT_BASE_URL: service.baseUrl,
    MGMT_MESSAGING_URL: service.messagingUrl,
    MGMT_REGIONAL_MESSAGING_URL: service.regionalMessagingUrl,
    MGMT_USERNAME: alice.username,
    MGMT_PASSWORD: alice.password,
    PULUMI_MGMT_STACK: `${stack}real`,
    // Against a real service the user brings the secrets passphrase; the main job has none of its own then.
    PULUMI_CONFIG_PASSPHRASE: "main-job-test-passphrase",
  };
  try {
    const out = await npmStart([], serviceEnv);
    expect(out.stdout).toContain(`using the service at ${service.baseUrl} (from MGMT_* variables)`);
    expect(out.stdout).toMatch(/^tenant-demo\s+false\s+7$/m);
    const client = clientFor({ baseUrl: service.baseUrl, username: alice.username, password: alice.password });
    expect((await client.searchIndexes.list()).map((i) => i.name).sort()).toEqual([
      "catalog",
      expect.stringMatching(/^scratch-/),
      "support-articles",
    ]);
    const destroyed = await npmStart(["--destroy"], serviceEnv);
    expect(await client.searchIndexes.list()).toEqual([]);
    // What it prints works from here: no `pulumi stack rm` (no CLI on PATH, another backend), and
    // the deleted objects are not listed as outputs.
    expect(destroyed.stdout).not.toMatch(/stack rm|^Outputs:/m);
    expect(destroyed.stdout).not.toContain("support-articles");
    expect(destroyed.stdout).toContain("`npm start -- --destroy --remove-stack` removes it too");
    await expect(npmStart([], { ...serviceEnv, MGMT_PASSWORD: "" })).rejects.toMatchObject({
      stderr: expect.stringMatching(/MGMT_BASE_URL is set, so MGMT_PASSWORD must be set too/),
    });
  } finally {
    rmSync(path.join(PACKAGE_ROOT, `Pulumi.${stack}real.yaml`), { force: true });
    await service.close();
  }
});
