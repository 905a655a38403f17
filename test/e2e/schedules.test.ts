/**
 * MessagingSchedule through the real engine against the emulator, in one stack: bad input refused
 * at preview, a create whose first answer is a 503 (looked up, then sent again), a no-op preview
 * with no call, every setting changed in place on the same schedule, a pause kept while it is not
 * declared, refresh after an outside change and an outside delete, a create whose connection drops
 * after the commit (found by its id, not sent twice), a 412 over the account's max_schedules, and
 * destroy. A schedule someone else made to the same destination on the same cron is never touched.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { MessagingSchedule, type ScheduleSpec } from "../../provider";
import { installPlugin } from "../../provider/plugin/install";
import { releasedMessage } from "../../provider/resources/released";
import { PLUGIN_MAIN } from "../support/pluginProcess";
import type { ActionTargetArgs } from "../../provider/resources/messagingFields";
import {
  declaring,
  exported,
  failure,
  freshMessagingAccount,
  pulumiCliDir,
  testEnv,
  type TestEnv,
} from "../support/harness";

type Args = ActionTargetArgs & ScheduleSpec;
const TYPE = "pulumi-nodejs:dynamic/mgmt:MessagingSchedule";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

/** Writes since the last log reset, as "METHOD route status". */
const writes = () =>
  env.emu
    .requests()
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.route.replace("/regional/:region/v2", "")} ${r.status}`);
const calls = () => env.emu.requests().map((r) => `${r.route.replace("/regional/:region/v2", "")} ${r.status}`);

test("a schedule: refused bad input, create, no-op, every change in place, outside changes, ambiguous create, 412, destroy", async () => {
  const { token, account } = freshMessagingAccount(env);
  // Someone else's schedule, to the same destination on the same cron.
  account.schedules["theirs"] = {
    destination: "https://example.com/report",
    cron: "0 3 * * *",
    paused: false,
    creates: 1,
  };
  let args: Args = {
    region: "eu-central-1",
    token,
    destination: "https://nope example",
    cron: "61 3 * * *",
    delay: "10 seconds",
  };
  let extra = false;
  const s = await env.stack({
    program: async () => {
      let schedule: MessagingSchedule | undefined;
      let over: MessagingSchedule | undefined;
      declaring(() => {
        schedule = new MessagingSchedule("nightly", args);
        if (extra)
          over = new MessagingSchedule("extra", { region: "eu-central-1", token, destination: "g", cron: "* * * * *" });
      });
      // A run whose create fails exports what that create would give: nothing is exported after
      // the engine has ended the run.
      if (over) return { extra: over.scheduleId };
      return schedule && { scheduleId: schedule.scheduleId, next: schedule.nextScheduleTime };
    },
  });

  // Bad input: the preview fails, one line per field, and nothing is sent.
  env.emu.resetLog();
  const refused = await failure(s.stack.preview());
  expect(refused).toMatch(/destination: .*URL/);
  expect(refused).toMatch(/cron: cannot parse "61 3 \* \* \*": minute 61 is outside 0-59/);
  expect(refused).toMatch(/delay: must be a whole number and a unit/);
  expect(refused).not.toMatch(/\n\s+at /);
  expect(calls()).toEqual([]);

  // Create: the first answer is a 503 (nothing made); the schedule is looked up by its id, then sent again.
  args = {
    region: "eu-central-1",
    token,
    destination: "https://example.com/report",
    cron: "0 3 * * *",
    timeZone: "Europe/Berlin",
    method: "PUT",
    body: '{"kind":"nightly"}',
    contentType: "application/json",
    headers: { "X-Team": "ops" },
    retries: 2,
    retryDelay: "1000",
    delay: "10s",
    timeout: "30s",
    callback: "https://example.com/cb",
    failureCallback: "https://example.com/failed",
    flowControl: { key: "reports", parallelism: 1, rate: 5, period: "1m" },
    labels: ["nightly"],
  };
  env.emu.addFault({ method: "POST", path: "/v2/schedules/https", status: 503 });
  env.emu.resetLog();
  const up = await s.up();
  const id = up.outputs.scheduleId.value as string;
  expect(id).toMatch(/^pulumi-[0-9a-f]{16}$/);
  expect(calls().filter((c) => c.includes("/schedules"))).toEqual([
    "POST /schedules/:destination 503",
    "GET /schedules/:scheduleId 404",
    "POST /schedules/:destination 200",
    "GET /schedules/:scheduleId 200",
  ]);
  expect(up.outputs.next.value).toBeGreaterThan(Date.now());
  expect(account.schedules[id]).toMatchObject({
    destination: "https://example.com/report",
    cron: "CRON_TZ=Europe/Berlin 0 3 * * *",
    method: "PUT",
    body: '{"kind":"nightly"}',
    header: { "x-team": ["ops"], "content-type": ["application/json"] },
    retries: 2,
    delay: 10,
    timeout: 30,
    flowControlKey: "reports",
    rate: 5,
    period: 60,
    labels: ["nightly"],
    paused: false,
    creates: 1,
  });
  const [stored] = await exported(s, TYPE);
  expect(JSON.stringify(stored)).not.toContain(token);

  // Nothing changed: the preview makes no API call.
  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 2 });
  expect(calls()).toEqual([]);

  // Every setting changed, and a pause declared: one update of the same schedule, no replace.
  args = {
    ...args,
    destination: "nightly-group",
    cron: "30 4 * * 1-5",
    timeZone: "America/New_York",
    method: "POST",
    body: "ping",
    contentType: "text/plain",
    headers: { "X-Team": "platform", "X-Env": "prod" },
    retries: 5,
    retryDelay: "pow(2, retried) * 1000",
    delay: "2m",
    timeout: "1m",
    callback: "https://example.com/cb2",
    failureCallback: "https://example.com/failed2",
    flowControl: { key: "reports-2", parallelism: 3, rate: 10, period: "30s" },
    labels: ["nightly", "weekday"],
    paused: true,
  };
  const preview = await s.stack.preview({ diff: true });
  expect(preview.changeSummary).toEqual({ same: 1, update: 1 });
  env.emu.resetLog();
  expect((await s.up()).summary.resourceChanges).toEqual({ same: 1, update: 1 });
  expect(writes()).toEqual(["POST /schedules/:destination 200", "POST /schedules/:scheduleId/pause 200"]);
  expect(Object.keys(account.schedules).sort()).toEqual([id, "theirs"].sort());
  expect(account.schedules[id]).toMatchObject({
    destination: "nightly-group",
    cron: "CRON_TZ=America/New_York 30 4 * * 1-5",
    method: "POST",
    body: "ping",
    header: { "x-team": ["platform"], "x-env": ["prod"], "content-type": ["text/plain"] },
    retries: 5,
    retryDelayExpression: "pow(2, retried) * 1000",
    delay: 120,
    timeout: 60,
    callback: "https://example.com/cb2",
    failureCallback: "https://example.com/failed2",
    flowControlKey: "reports-2",
    parallelism: 3,
    rate: 10,
    period: 30,
    labels: ["nightly", "weekday"],
    paused: true,
    creates: 2,
  });

  // A declared pause someone lifts: refresh shows it, and up pauses again without touching the settings.
  const outside = env.client.schedules({ region: "eu-central-1", token });
  await outside.resume(id);
  await s.refresh();
  expect((await exported(s, TYPE))[0].outputs).toMatchObject({ paused: false });
  env.emu.resetLog();
  await s.up();
  expect(writes()).toEqual(["POST /schedules/:scheduleId/pause 200"]);
  expect(account.schedules[id]).toMatchObject({ paused: true, creates: 2 });

  // `paused` no longer declared: nothing to do. Then someone resumes it and changes its cron;
  // refresh shows the cron (declared), not the pause (the operator's), and up puts back only the cron.
  const { paused: _, ...undeclared } = args;
  args = undeclared;
  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 2 });
  expect(calls()).toEqual([]);
  await outside.resume(id);
  account.schedules[id].cron = "0 0 * * *";
  await s.refresh();
  // Every other declared setting reads back as declared (the service's "2m" is 120 s, its header names lower case).
  const { token: _t, ...declared } = args;
  const { timeZone: _z, ...rest } = declared;
  const refreshed = (await exported(s, TYPE))[0].outputs!;
  // The service's cron has no zone now: the declared one shows as gone.
  expect(refreshed).toMatchObject({ ...rest, cron: "0 0 * * *" });
  expect(refreshed.timeZone).toBeUndefined();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 1, update: 1 });
  env.emu.resetLog();
  await s.up();
  expect(writes()).toEqual(["POST /schedules/:destination 200"]);
  expect(account.schedules[id]).toMatchObject({ cron: "CRON_TZ=America/New_York 30 4 * * 1-5", paused: false });

  // Deleted outside: refresh drops it; the next up makes it again, and its connection drops after
  // the commit: the schedule is found by the id this package sent, never sent twice.
  await outside.delete(id);
  await s.refresh();
  expect(await exported(s, TYPE)).toEqual([]);
  env.emu.addFault({ method: "POST", path: "/v2/schedules/nightly-group", commitThenDrop: true });
  env.emu.resetLog();
  const again = await s.up();
  const id2 = again.outputs.scheduleId.value as string;
  expect(calls().filter((c) => c.includes("/schedules"))).toEqual([
    "POST /schedules/:destination dropped",
    "GET /schedules/:scheduleId 200",
    "GET /schedules/:scheduleId 200",
  ]);
  expect(Object.keys(account.schedules).sort()).toEqual([id2, "theirs"].sort());
  expect(account.schedules[id2].creates).toBe(1);

  // Over the account's max_schedules: a 412 named in one line.
  account.record.max_schedules = 2;
  extra = true;
  const over = await failure(s.up());
  expect(over).toMatch(/could not create or update schedule "pulumi-[0-9a-f]+" in eu-central-1: .*412.*max_schedules/);
  extra = false;
  account.record.max_schedules = 10;

  // Destroy deletes the schedule this stack made, and only that one.
  await s.destroy();
  expect(Object.keys(account.schedules)).toEqual(["theirs"]);
  expect(account.schedules.theirs.creates).toBe(1);
});

/**
 * Through the `mgmt` plugin and the CLI (offline, as test/e2e/pluginImport.test.ts): `pulumi import`
 * of a schedule someone made, a program declaring what it found (no change), a change made in
 * place on that same schedule, and destroy, which releases it: it was found, not made.
 */
test("pulumi import through the plugin: found as it is, changed in place, released on destroy", async () => {
  const { token, account } = freshMessagingAccount(env);
  const alice = env.emu.users[0];
  const dir = mkdtempSync(path.join(tmpdir(), "mgmt-sched-import-"));
  try {
    const pluginDir = path.join(dir, "plugin");
    installPlugin(pluginDir, PLUGIN_MAIN);
    const project = path.join(dir, "project");
    for (const d of [project, path.join(dir, "home"), path.join(dir, "state")]) mkdirSync(d);
    symlinkSync(path.resolve(__dirname, "../../node_modules"), path.join(project, "node_modules"));
    writeFileSync(
      path.join(project, "Pulumi.yaml"),
      `name: mgmt-sched-import\nruntime: nodejs\nplugins:\n  providers:\n    - name: mgmt\n      path: ${pluginDir}\n`,
    );
    writeFileSync(
      path.join(project, "index.js"),
      [
        'const pulumi = require("@pulumi/pulumi");',
        'for (const r of require("./program.json"))',
        "  new pulumi.CustomResource(`mgmt:index:${r.type}`, r.name, r.props);",
        "",
      ].join("\n"),
    );
    const declare = (resources: { type: string; name: string; props: Record<string, unknown> }[]) =>
      writeFileSync(path.join(project, "program.json"), JSON.stringify(resources));
    // The settings as environment variables: no config runs of the CLI.
    const cliEnv = {
      MGMT_BASE_URL: env.emu.baseUrl,
      MGMT_USERNAME: alice.username,
      MGMT_PASSWORD: alice.password,
      MGMT_REGIONAL_MESSAGING_URL: env.emu.regionalMessagingUrl,
      MGMT_MESSAGING_TOKEN: token,
    };
    const pulumi = async (...args: string[]) => {
      const cli = pulumiCliDir();
      try {
        const { stdout } = await promisify(execFile)(path.join(cli, "pulumi"), args, {
          cwd: project,
          maxBuffer: 16 * 1024 * 1024,
          env: {
            PATH: [cli, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
            HOME: dir,
            PULUMI_HOME: path.join(dir, "home"),
            PULUMI_BACKEND_URL: `file://${path.join(dir, "state")}`,
            PULUMI_CONFIG_PASSPHRASE: "sched-import-test",
            PULUMI_SKIP_UPDATE_CHECK: "true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
            ...cliEnv,
          },
        });
        return stdout;
      } catch (err) {
        const e = err as Error & { stdout?: string; stderr?: string };
        throw new Error(`pulumi ${args.join(" ")} failed:\n${e.stdout}\n${e.stderr}`);
      }
    };
    declare([]);
    await pulumi("stack", "init", "dev");

    // Someone's schedule, paused by an operator.
    const theirs = env.client.schedules({ region: "eu-central-1", token });
    await theirs.create("https://example.com/ops", {
      scheduleId: "ops-report",
      cron: "CRON_TZ=Europe/Berlin 15 6 * * *",
      method: "PUT",
      retries: 4,
      delay: "30s",
      labels: ["ops"],
    });
    await theirs.pause("ops-report");

    const code = await pulumi("import", "--yes", "mgmt:index:MessagingSchedule", "report", "eu-central-1/ops-report");
    expect(code).toMatch(/new mgmt\.MessagingSchedule\("report", \{/);
    expect(code).toMatch(/cron: "15 6 \* \* \*"/);
    expect(code).toMatch(/timeZone: "Europe\/Berlin"/);

    const props = {
      region: "eu-central-1",
      destination: "https://example.com/ops",
      cron: "15 6 * * *",
      timeZone: "Europe/Berlin",
      method: "PUT",
      retries: 4,
      delay: "30s",
      labels: ["ops"],
      paused: true,
    };
    declare([{ type: "MessagingSchedule", name: "report", props }]);
    env.emu.resetLog();
    await pulumi("preview", "--expect-no-changes");
    expect(writes()).toEqual([]);

    // A change is made on that same schedule, in place; its pause stays as declared.
    declare([{ type: "MessagingSchedule", name: "report", props: { ...props, cron: "45 6 * * *" } }]);
    env.emu.resetLog();
    const up = await pulumi("up", "--yes");
    expect(up).not.toMatch(/replace/);
    expect(writes()).toEqual(["POST /schedules/:destination 200"]);
    expect(account.schedules["ops-report"]).toMatchObject({ cron: "CRON_TZ=Europe/Berlin 45 6 * * *", paused: true });
    expect(Object.keys(account.schedules)).toEqual(["ops-report"]);

    // Found, not made: destroy releases it.
    const destroyed = await pulumi("destroy", "--yes");
    expect(destroyed).toContain(releasedMessage('schedule "ops-report"'));
    expect(Object.keys(account.schedules)).toEqual(["ops-report"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
