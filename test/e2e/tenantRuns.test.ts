/**
 * What one tenant's run costs and keeps, through the real engine (fleet/converge.ts, as the fleet
 * and the driver run it): every CLI start is about 0.4 s of CPU before it does anything, so a
 * run starts as few as it can. A new tenant: its stack is made by the CLI (`stack select
 * --create`; nothing but Pulumi writes Pulumi's backend), then `up`. A tenant this work folder has
 * run, or whose stack the fleet's run records say exists (fence.ts): `up` alone (knownStacks.ts).
 * The service's settings reach the plugin as environment variables: nothing of them is written
 * into the stack's config or its state, and a stack that recorded them (an earlier version) has
 * them dropped once. A stack removed elsewhere since is made again by the CLI. The index's
 * entry in the state is the plugin's: no serialized provider, within issue 37's 1.9 KB.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { mgmtStack } from "../../provider/automation";
import { TENANT_RUN_LOGS_MB } from "../../fleet/cliLogs";
import { converge, type RunOptions } from "../../fleet/converge";
import { TENANT_PROJECT, type Tenant } from "../../fleet/tenant";
import { tenantProgram } from "../../fleet/tenantResources";
import { STATE_TARGET_BYTES, searchIndexStateSplit } from "../../bench/stateSize";
import { testBackend, testEnv, writes, type TestEnv } from "../support/harness";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

const tenant: Tenant = {
  id: "acme",
  plan: "free",
  searchRegion: "eu-west-1",
  messagingRegion: "eu-central-1",
  flowControlKey: "acme",
};

/** Everything a tenant's runs share: a backend, a work root, the service's settings. */
function runs() {
  const backend = testBackend();
  const workRoot = path.join(backend.backendDir, "work");
  const pidFile = path.join(backend.backendDir, "cli-pids");
  writeFileSync(pidFile, "");
  // The CLIs' own Pulumi home, beside the backend (files() lists the backend's folder): its logs
  // folder is where each CLI writes a log and which it lists at start.
  const pulumiHome = `${backend.backendDir}-home`;
  const messaging = env.emu.users[0].accounts.find((a) => a.region === "eu-central-1" && a.type === "free")!;
  const options = (action: RunOptions["action"]): RunOptions => ({
    backendUrl: `file://${backend.backendDir}`,
    // Relative, as `--work-dir w1` gives it: Pulumi must still find the plugin's folder.
    workRoot: path.relative(process.cwd(), workRoot),
    mgmt: { ...env.mgmt, messagingToken: messaging.token },
    retries: 0,
    action,
    recover: false,
    signal: new AbortController().signal,
    passphrase: backend.passphrase,
    // Each CLI records its pid in this file (automation/boundCli.ts): one line per CLI started.
    boundCli: true,
    envVars: { PULUMI_MGMT_CLI_PIDS: pidFile, PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_HOME: pulumiHome },
  });
  let counted = 0;
  return {
    backend,
    logsDir: path.join(pulumiHome, "logs"),
    workDir: path.join(workRoot, tenant.id),
    password: env.mgmt.password as string,
    options,
    /** The CLI processes started since the last call. */
    clis(): number {
      const all = readFileSync(pidFile, "utf8").split("\n").filter(Boolean).length;
      const since = all - counted;
      counted = all;
      return since;
    },
    /** The inputs of the stack's mgmt provider resource, as the engine recorded them. */
    providerInputs(): Record<string, unknown> {
      const file = path.join(stacksDir(backend.backendDir), `${tenant.id}.json`);
      const state = JSON.parse(readFileSync(file, "utf8")) as {
        checkpoint: { latest: { resources: { type: string; inputs?: Record<string, unknown> }[] } };
      };
      return state.checkpoint.latest.resources.find((res) => res.type === "pulumi:providers:mgmt")?.inputs ?? {};
    },
    /** Every file under the backend's folder (the work folders are in it too). */
    files: () =>
      readdirSync(backend.backendDir, { recursive: true, withFileTypes: true })
        .filter((f) => f.isFile())
        .map((f) => path.join(f.parentPath, f.name)),
  };
}

/**
 * Log files of 128 KB, `mb` MB in all, in `dir`, with a timestamp in their names as the CLI's
 * (which it writes in local time and reads as UTC): a day old, so older than the run's own logs in
 * any time zone, and well inside the CLI's 7 days.
 */
function fillLogs(dir: string, mb: number): void {
  mkdirSync(dir, { recursive: true });
  const d = new Date(Date.now() - 24 * 3600_000);
  const two = (n: number) => String(n).padStart(2, "0");
  const stamp = `${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}T${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}`;
  const body = Buffer.alloc(128 * 1024, "x");
  for (let i = 0; i < mb * 8; i++) writeFileSync(path.join(dir, `pulumi-${stamp}-${100000 + i}-filler.log`), body);
}
const folderMB = (dir: string) =>
  readdirSync(dir).reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0) / (1024 * 1024);

/** Where a file:// backend keeps the tenants project's stacks. */
const stacksDir = (backendDir: string) => path.join(backendDir, ".pulumi", "stacks", TENANT_PROJECT);

beforeEach(() => {
  env.emu.emulator.reset();
  const messaging = env.emu.users[0].accounts.find((a) => a.region === "eu-central-1" && a.type === "free")!;
  const keys = env.emu.emulator.data.accounts.find((a) => a.record.id === messaging.id)!.keys;
  for (const key of ["acme", "globex"]) keys[key] = { waitListSize: 0, paused: false, rateResets: 0 };
});

test("a new tenant starts two CLI commands, a known one's one; the settings stay out of the stack's config and state; Pulumi's log folder stays small; an index deleted elsewhere is drift", async () => {
  const r = runs();
  // A log folder over the tenants' cap (cliLogs.ts), which Pulumi's own rotation (500 MB) would
  // keep: the run's CLIs bring it under the cap, and each of them still writes its log there.
  fillLogs(r.logsDir, TENANT_RUN_LOGS_MB + 16);
  expect(await converge(tenant, r.options("converge"))).toMatchObject({ status: "created" });
  expect(r.clis()).toBe(2); // stack select --create, up
  expect(folderMB(r.logsDir)).toBeLessThan(TENANT_RUN_LOGS_MB + 1);
  expect(readdirSync(r.logsDir).filter((f) => !f.endsWith("-filler.log")).length).toBeGreaterThanOrEqual(2);
  rmSync(r.logsDir, { recursive: true });
  const stackFile = readFileSync(path.join(r.workDir, `Pulumi.${tenant.id}.yaml`), "utf8");
  expect(stackFile).not.toMatch(/mgmt:/);
  // The provider's recorded inputs hold no address or credential (they came from the environment).
  expect(r.providerInputs()).not.toHaveProperty("baseUrl");
  expect(r.providerInputs()).not.toHaveProperty("password");
  expect(r.files().filter((f) => readFileSync(f, "utf8").includes(r.password))).toEqual([]);
  // Issue 37's target for the tenant stacks, at most 1.9 KB of state per index: the plugin's entry
  // holds no serialized provider, only its inputs, outputs, and the Node.js SDK's source trace.
  const entry = searchIndexStateSplit(r.files());
  expect(entry.provider).toBe(0);
  expect(entry.total).toBeLessThanOrEqual(STATE_TARGET_BYTES);

  env.emu.resetLog();
  expect(await converge(tenant, r.options("converge"))).toMatchObject({ status: "unchanged" });
  expect(r.clis()).toBe(1); // up
  expect(writes(env.emu)).toBe(0);

  expect(await converge(tenant, r.options("drift"))).toMatchObject({ status: "unchanged" });
  expect(r.clis()).toBe(1); // preview --refresh
  // An index deleted outside the stack is drift too: a refresh would drop it from the state.
  const [index] = (await env.client.searchIndexes.list()).filter((i) => i.name.startsWith(`${tenant.id}-search-`));
  await env.client.searchIndexes.delete(index.id);
  const gone = await converge(tenant, r.options("drift"));
  expect(gone).toMatchObject({
    status: "drifted",
    drift: [{ resource: `${tenant.id}-search`, fields: [], deleted: true }],
  });
  r.clis();

  expect(await converge(tenant, r.options("destroy"))).toMatchObject({ status: "destroyed" });
  expect(r.clis()).toBe(2); // destroy, stack rm
  expect(await env.client.searchIndexes.list()).toEqual([]);
});

test("a new tenant's run starts two CLI commands; a stack the fleet's records say exists is run with no select in a new folder; one removed elsewhere since is made again; one that recorded the settings has them dropped once", async () => {
  const r = runs();
  expect(await converge(tenant, r.options("converge"))).toMatchObject({ status: "created" });
  r.clis();
  // Every new tenant's stack is made by the CLI, the first of a backend as any other.
  const globex: Tenant = { ...tenant, id: "globex", flowControlKey: "globex" };
  expect(await converge(globex, r.options("converge"))).toMatchObject({ status: "created" });
  expect(r.clis()).toBe(2); // stack select --create, up
  expect(readFileSync(path.join(stacksDir(r.backend.backendDir), "globex.json"), "utf8")).toMatch(
    /"secrets_providers":\{"type":"passphrase"/,
  );
  // Another machine's folder, which never ran the tenant, told by the run records that its stack exists.
  const anotherMachine = {
    ...r.options("converge"),
    workRoot: path.join(r.backend.backendDir, "m2"),
    stackExists: true,
  };
  expect(await converge(tenant, anotherMachine)).toMatchObject({ status: "unchanged" });
  expect(r.clis()).toBe(1); // up
  // Another folder (another machine of the fleet) destroys the tenant and removes its stack.
  const elsewhere = { ...r.options("destroy"), workRoot: path.join(r.backend.backendDir, "elsewhere") };
  expect(await converge(tenant, elsewhere)).toMatchObject({ status: "destroyed" });
  r.clis();

  // This folder still takes the stack for known: its up finds none, and the run makes it again.
  expect(await converge(tenant, r.options("converge"))).toMatchObject({ status: "created" });
  expect(r.clis()).toBe(3); // up (no such stack), stack select --create, up

  // A stack whose config holds the settings, as an earlier version wrote them: dropped once, so
  // that a recorded old password no longer wins over the fleet's.
  await mgmtStack({
    workDir: r.workDir,
    ...r.backend,
    projectName: TENANT_PROJECT,
    stackName: tenant.id,
    program: tenantProgram(tenant),
    mgmt: { ...env.mgmt, password: "an-old-password" },
  });
  expect(readFileSync(path.join(r.workDir, `Pulumi.${tenant.id}.yaml`), "utf8")).toMatch(/mgmt:password/);
  r.clis();
  expect(await converge(tenant, r.options("converge"))).toMatchObject({ status: "unchanged" });
  expect(r.clis()).toBe(2); // config rm-all, up
  expect(readFileSync(path.join(r.workDir, `Pulumi.${tenant.id}.yaml`), "utf8")).not.toMatch(/mgmt:/);
  expect(await converge(tenant, r.options("converge"))).toMatchObject({ status: "unchanged" });
  expect(r.clis()).toBe(1);
  await converge(tenant, r.options("destroy"));
});
