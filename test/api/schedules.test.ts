/**
 * The emulator's schedule routes (contract "Schedules, URL groups and signing keys"), driven by the
 * vendor's own messaging SDK (@upstash/qstash) and by this package's client: both must see the same
 * service.
 */
import { Client } from "@upstash/qstash";
import { MgmtClient } from "../../provider/api/client";
import { ApiError } from "../../provider/api/errors";
import { nextRun, parseCron, cronProblem } from "../../provider/api/cron";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { clientFor } from "../support/harness";

let emu: RunningEmulator;
let ours: MgmtClient;
let account: { id: string; token: string; region: "eu-central-1" | "us-east-1" };
let qstash: Client;

beforeAll(async () => {
  emu = await startEmulator();
  const alice = emu.users[0];
  account = alice.accounts.find((a) => a.region === "eu-central-1" && a.type === "free")! as typeof account;
  ours = clientFor({
    baseUrl: emu.baseUrl,
    messagingUrl: emu.messagingUrl,
    regionalMessagingUrl: emu.regionalMessagingUrl,
    username: alice.username,
    password: alice.password,
    messagingToken: account.token,
  });
  qstash = new Client({
    baseUrl: emu.regionalMessagingUrl.replace("{region}", account.region),
    token: account.token,
    retry: false,
  });
});
afterAll(() => emu.close());
beforeEach(() => emu.emulator.reset());

async function status(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err.status;
    throw err;
  }
  throw new Error("expected the call to fail");
}

describe("the vendor's SDK against the emulator", () => {
  test("create, get, list, pause, resume and delete", async () => {
    const { scheduleId } = await qstash.schedules.create({
      destination: "https://example.com/hook/a",
      cron: "CRON_TZ=Europe/Berlin */5 * * * *",
      scheduleId: "nightly-report",
      method: "PUT",
      body: '{"report":"nightly"}',
      headers: { "X-Team": "ops" },
      retries: 2,
      retryDelay: "pow(2, retried) * 1000",
      delay: "10s",
      timeout: "30s",
      callback: "https://example.com/cb",
      failureCallback: "https://example.com/failed",
      flowControl: { key: "reports", parallelism: 2, rate: 10, period: "60s" },
      label: "nightly",
    });
    expect(scheduleId).toBe("nightly-report");
    const got = await qstash.schedules.get(scheduleId);
    expect(got).toMatchObject({
      scheduleId,
      cron: "CRON_TZ=Europe/Berlin */5 * * * *",
      destination: "https://example.com/hook/a",
      method: "PUT",
      body: '{"report":"nightly"}',
      retries: 2,
      delay: 10,
      callback: "https://example.com/cb",
      failureCallback: "https://example.com/failed",
      isPaused: false,
      flowControlKey: "reports",
      parallelism: 2,
      rate: 10,
      period: 60,
      retryDelayExpression: "pow(2, retried) * 1000",
    });
    expect(got.header?.["x-team"]).toEqual(["ops"]);
    expect(got.nextScheduleTime).toBeGreaterThan(Date.now());
    // Our client reads the same record.
    expect(await ours.schedules({ region: account.region }).get(scheduleId)).toMatchObject({
      labels: ["nightly"],
      timeout: 30,
    });

    await qstash.schedules.pause({ schedule: scheduleId });
    expect((await qstash.schedules.get(scheduleId)).isPaused).toBe(true);
    // A replace (create with the same id) changes the settings in place and keeps the pause.
    await qstash.schedules.create({ destination: "group-a", cron: "0 3 * * *", scheduleId });
    const replaced = await qstash.schedules.get(scheduleId);
    expect(replaced).toMatchObject({ destination: "group-a", cron: "0 3 * * *", isPaused: true, method: "POST" });
    expect(replaced.callback).toBeUndefined();
    await qstash.schedules.resume({ schedule: scheduleId });
    expect((await qstash.schedules.get(scheduleId)).isPaused).toBe(false);

    const other = await qstash.schedules.create({ destination: "https://example.com/b", cron: "0 * * * *" });
    expect((await qstash.schedules.list()).map((s) => s.scheduleId).sort()).toEqual(
      [other.scheduleId, scheduleId].sort(),
    );
    await qstash.schedules.delete(scheduleId);
    await expect(qstash.schedules.get(scheduleId)).rejects.toThrow(/not found/);
    expect((await qstash.schedules.list()).map((s) => s.scheduleId)).toEqual([other.scheduleId]);
  });

  test("a cron that cannot parse is a 400; more than max_schedules is a 412", async () => {
    await expect(qstash.schedules.create({ destination: "https://example.com/", cron: "61 * * * *" })).rejects.toThrow(
      /minute 61/,
    );
    const live = emu.emulator.data.accounts.find((a) => a.record.id === account.id)!;
    live.record.max_schedules = 1;
    const s = ours.schedules({ region: account.region });
    await s.create("https://example.com/x", { scheduleId: "one", cron: "* * * * *" });
    expect(await status(s.create("https://example.com/x", { scheduleId: "two", cron: "* * * * *" }))).toBe(412);
    // Replacing the one that exists is not a new schedule.
    await s.create("https://example.com/y", { scheduleId: "one", cron: "0 * * * *", body: "hi" });
    expect(await s.get("one")).toMatchObject({ destination: "https://example.com/y", body: "hi" });
  });
});

describe("this package's schedule verbs", () => {
  test("headers carry every setting; a destination URL travels as one encoded segment", async () => {
    const s = ours.schedules({ region: account.region });
    const id = await s.create("https://example.com/a/b?x=1", {
      scheduleId: "s-1",
      cron: "0 9 * * MON-FRI",
      method: "PATCH",
      body: "<ping/>",
      contentType: "application/xml",
      headers: { "X-Key": "v" },
      labels: ["a", "b"],
      flowControl: { key: "k", rate: 5, period: "1m" },
    });
    expect(id).toBe("s-1");
    const r = await s.get("s-1");
    expect(r).toMatchObject({
      destination: "https://example.com/a/b?x=1",
      method: "PATCH",
      body: "<ping/>",
      labels: ["a", "b"],
      flowControlKey: "k",
      rate: 5,
      period: 60,
    });
    expect(r.header).toMatchObject({ "x-key": ["v"], "content-type": ["application/xml"] });
    await s.pause("s-1");
    await s.pause("s-1");
    expect((await s.get("s-1")).isPaused).toBe(true);
    await s.delete("s-1");
    expect(await status(s.get("s-1"))).toBe(404);
    expect(await status(s.delete("s-1"))).toBe(404);
  });
});

describe("cron", () => {
  test("parses five fields with an optional time zone, and finds the next minute", () => {
    expect(cronProblem("*/15 0-6 1,15 * 1-5")).toBeUndefined();
    expect(cronProblem("* * * *")).toMatch(/five fields/);
    expect(cronProblem("CRON_TZ=Mars/Base * * * * *")).toMatch(/time zone/);
    const from = Date.UTC(2026, 0, 1, 10, 7, 30);
    expect(nextRun(parseCron("0 12 * * *"), from)).toBe(Date.UTC(2026, 0, 1, 12, 0));
    expect(nextRun(parseCron("CRON_TZ=America/New_York 0 12 * * *"), from)).toBe(Date.UTC(2026, 0, 1, 17, 0));
    expect(nextRun(parseCron("30 8 * * SAT"), from)).toBe(Date.UTC(2026, 0, 3, 8, 30));
  });
});
