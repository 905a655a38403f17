/**
 * The `mgmt` plugin's Invoke, over real gRPC against an in-process emulator: every function served
 * by the TypeScript package's own getX with the provider's configuration, arguments checked with
 * the function's schema (one failure naming the field, nothing sent), lists as `{ items }`, and
 * tokens never answered in plain text. No Pulumi engine runs.
 */
import * as grpc from "@grpc/grpc-js";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { FUNCTIONS } from "../../provider/functions/all";
import { SECRET_SIG, SIG_KEY, type Plain } from "../../provider/plugin/properties";
import { PluginRun, secret } from "../support/pluginCalls";
import { stopPlugins } from "../support/pluginProcess";

let emu: RunningEmulator;
let run: PluginRun;
const SECRET = { [SIG_KEY]: SECRET_SIG };

beforeAll(async () => {
  emu = await startEmulator();
  run = await new PluginRun(emu).nextRun();
});
afterAll(async () => {
  run?.close();
  stopPlugins();
  await emu?.close();
});

/** An invoke's answer as plain JSON (secrets still wrapped), kept to look for tokens; its failures as [field, reason]. */
async function invoke(fn: string, args: Record<string, Plain> = {}) {
  const res = await run.invoke(fn, args);
  return {
    value: run.plain(res.getReturn()),
    failures: res.getFailuresList().map((f) => [f.getProperty(), f.getReason()]),
  };
}

/** The first user's paid account, a queue and a key on it, and an index: something for every function to find. */
async function seedObjects() {
  const account = emu.users[0].accounts.find((a) => a.type === "paid")!;
  const stored = emu.emulator.data.accounts.find((a) => a.record.id === account.id)!;
  stored.queues["jobs"] = { paused: false, resumes: 0, parallelism: 2 };
  stored.keys["tenant-a"] = { waitListSize: 3, paused: false, rateResets: 0 };
  stored.topics["hooks"] = { endpoints: [{ url: "https://a.example.com", name: "a" }], createdAt: 1, updatedAt: 2 };
  stored.schedules["nightly"] = {
    destination: "https://example.com/n",
    cron: "0 3 * * *",
    paused: true,
    labels: ["n"],
  };
  const checked = await run.check("SearchIndex", "docs", { name: "docs", region: "eu-west-1", type: "free" });
  const index = await run.create("SearchIndex", "docs", checked.getInputs());
  run.plain(index.getProperties());
  return { account, index: emu.emulator.data.indexes[0].record };
}

test("every function answers through the TypeScript package's own getX, with the provider's configuration", async () => {
  const { account, index } = await seedObjects();
  const { region, token, id } = account;
  const argsOf: Record<string, Record<string, Plain>> = {
    getSearchIndex: { id: index.id },
    getSearchIndexTokens: { id: index.id },
    getSearchIndexStats: { id: index.id, period: "1d" },
    getMessagingAccount: { region, type: "paid" },
    getMessagingAccountTokens: { region, type: "paid" },
    getMessagingAccountStats: { id },
    getFlowControl: { key: "tenant-a", token },
    getFlowControlKeys: { token },
    getGlobalParallelism: { token },
    getQueues: { region, token },
    getQueue: { region, name: "jobs", token },
    getSigningKeys: { region, token },
    getUrlGroups: { region, token },
    getUrlGroup: { region, name: "hooks", token },
    getSchedules: { region, token },
    getSchedule: { region, scheduleId: "nightly", token },
  };
  const answers: Record<string, Record<string, Plain>> = {};
  for (const f of FUNCTIONS) {
    const { value, failures } = await invoke(f.name, argsOf[f.name]);
    expect([f.name, failures]).toEqual([f.name, []]);
    answers[f.name] = value;
  }

  // Lists come back as { items }; tokens come back secret, the rest plain. An index's or an
  // account's tokens come only from a function of their own: Pulumi's YAML host makes a whole
  // result secret when any field of it is, and an index's name or an account's id is no secret.
  expect(answers.getSearchIndexes).toEqual({
    items: [expect.objectContaining({ id: index.id, name: "docs", endpoint: index.endpoint })],
  });
  expect(answers.getSearchIndex).toMatchObject({ id: index.id, name: "docs", endpoint: index.endpoint });
  for (const plain of [answers.getSearchIndex, ...(answers.getSearchIndexes.items as Record<string, Plain>[])])
    expect(JSON.stringify(plain)).not.toMatch(/token|secret/i);
  expect(answers.getSearchIndexTokens).toEqual({
    token: { ...SECRET, value: index.token },
    readOnlyToken: { ...SECRET, value: index.read_only_token },
  });
  expect(answers.getMessagingAccount).toMatchObject({ id, region, type: "paid" });
  expect((answers.getMessagingAccounts.items as Plain[]).length).toBe(emu.users[0].accounts.length);
  expect(answers.getMessagingAccounts.items).toContainEqual(expect.objectContaining({ id, region }));
  for (const plain of [answers.getMessagingAccount, ...(answers.getMessagingAccounts.items as Record<string, Plain>[])])
    expect(JSON.stringify(plain)).not.toMatch(/token|secret/i);
  expect(answers.getMessagingAccountTokens).toMatchObject({ token: { ...SECRET, value: token } });
  expect(answers.getQueue).toMatchObject({ name: "jobs", parallelism: 2 });
  expect(answers.getQueues).toEqual({ items: [expect.objectContaining({ name: "jobs" })] });
  const hooks = { name: "hooks", createdAt: 1, updatedAt: 2, endpoints: [{ url: "https://a.example.com", name: "a" }] };
  expect(answers.getUrlGroup).toEqual(hooks);
  expect(answers.getUrlGroups).toEqual({ items: [hooks] });
  expect(answers.getSchedule).toMatchObject({
    scheduleId: "nightly",
    destination: "https://example.com/n",
    cron: "0 3 * * *",
    isPaused: true,
    labels: ["n"],
    nextScheduleTime: expect.any(Number),
  });
  expect(answers.getSchedules).toEqual({ items: [expect.objectContaining({ scheduleId: "nightly" })] });
  expect(answers.getFlowControl).toMatchObject({ flowControlKey: "tenant-a", waitListSize: 3 });
  expect(answers.getFlowControlKeys).toEqual({ items: [expect.objectContaining({ flowControlKey: "tenant-a" })] });
  expect((answers.getDatabases.items as Plain[]).length).toBe(2);
  expect(answers.getMessagingIpv4Addresses).toEqual({ addresses: expect.arrayContaining([expect.any(String)]) });
  // Both signing keys secret: a YAML program gets them as secrets.
  const keys = emu.emulator.data.accounts.find((a) => a.record.id === id)!.signingKeys;
  expect(answers.getSigningKeys).toEqual({
    current: { ...SECRET, value: keys.current },
    next: { ...SECRET, value: keys.next },
  });

  // No token was ever answered in plain text (the accounts' tokens, the index's).
  const plainText = run.plainText();
  for (const a of emu.emulator.data.accounts) {
    expect(plainText).not.toContain(a.record.token);
    expect(plainText).not.toContain(a.signingKeys.current);
    expect(plainText).not.toContain(a.signingKeys.next);
  }
  expect(plainText).not.toContain(index.token);
  expect(plainText).not.toContain(index.read_only_token);
});

test("a secret argument keeps the whole answer secret, as Pulumi does for what is computed from a secret", async () => {
  const { region, token } = emu.users[0].accounts[0];
  const { value } = await invoke("getQueues", { region, token: secret(token) });
  expect(value).toEqual({ items: { ...SECRET, value: expect.any(Array) } });
});

test("a bad argument fails in one line naming the field, and nothing is sent", async () => {
  emu.resetLog();
  const { failures } = await invoke("getQueue", { region: "mars-1", name: "jobs" });
  expect(failures).toEqual([["region", expect.stringMatching(/^region: [^\n]+$/)]]);
  const missing = await invoke("getSearchIndex", {});
  expect(missing.failures).toEqual([["id", expect.stringMatching(/^id: [^\n]+$/)]]);
  expect(emu.requests()).toEqual([]);
});

test("an object that is not there fails in one line naming it, and an unknown function names the functions", async () => {
  await expect(run.invoke("getMessagingAccount", { id: "nope" })).rejects.toMatchObject({
    code: grpc.status.INVALID_ARGUMENT,
    details: expect.stringMatching(/^getMessagingAccount: id: no messaging account "nope"[^\n]*$/),
  });
  await expect(run.invoke("getEverything")).rejects.toMatchObject({
    code: grpc.status.INVALID_ARGUMENT,
    details: expect.stringMatching(/^mgmt plugin: no function "mgmt:index:getEverything"; the functions are [^\n]+$/),
  });
});
