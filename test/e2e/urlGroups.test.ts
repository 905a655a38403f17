/**
 * UrlGroup through the real engine against the emulator, in one stack: create (a group made, a
 * group found with someone's endpoint in it), a no-op preview with no API call, endpoints added,
 * renamed and removed in place, refresh after out-of-band changes and an out-of-band delete, bad
 * input refused at preview, the account's limit (412), the read functions, and a destroy that
 * removes only what the stack made and names the schedule that keeps a group. Starts the CLI: run
 * it under the engine lock.
 */
import { UrlGroup, getUrlGroupOutput, getUrlGroupsOutput } from "../../provider";
import { releasedMessage } from "../../provider/resources/released";
import { declaring, exported, freshMessagingAccount, testEnv, type TestEnv } from "../support/harness";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

const TYPE = "pulumi-nodejs:dynamic/mgmt:UrlGroup";
const REGION = "eu-central-1";
type Endpoint = { url: string; name?: string };

/** POSTs and DELETEs since the last log reset, as "METHOD path". */
const writeCalls = () =>
  env.emu
    .requests()
    .filter((r) => r.method !== "GET")
    .map((r) => `${r.method} ${r.path.replace(`/regional/${REGION}/v2`, "")}`)
    .sort();

test("UrlGroup: created and found groups, endpoints changed in place, refresh after outside changes, limits, bad input, and a destroy that removes only what the stack made", async () => {
  const { token, account } = freshMessagingAccount(env);
  // A group someone else made, with their endpoint in it.
  account.topics.shared = { endpoints: [{ url: "https://theirs.example.com" }], createdAt: 1, updatedAt: 1 };

  let groups: Record<string, Endpoint[]> = {
    billing: [{ url: "https://a.example.com", name: "a" }, { url: "https://b.example.com" }],
    shared: [{ url: "https://ours.example.com" }],
    temp: [{ url: "https://t.example.com" }],
  };
  let readFunctions = false;
  const s = await env.stack({
    program: async () => {
      declaring(() => {
        for (const [name, endpoints] of Object.entries(groups))
          new UrlGroup(name, { region: REGION, token, name, endpoints });
      });
      if (!readFunctions) return {};
      return {
        all: getUrlGroupsOutput({ region: REGION, token }),
        billing: getUrlGroupOutput({ region: REGION, name: "billing", token }),
      };
    },
  });
  const outputs = async () =>
    Object.fromEntries((await exported(s, TYPE)).map((r) => [r.outputs!.group as string, r.outputs!]));
  const endpointsOf = (group: string) => account.topics[group]?.endpoints.map((e) => e.url).sort();

  // Create: one add per group; the group found is not the stack's, nor its endpoint.
  env.emu.resetLog();
  await s.up();
  expect(writeCalls()).toEqual([
    "POST /topics/billing/endpoints",
    "POST /topics/shared/endpoints",
    "POST /topics/temp/endpoints",
  ]);
  expect(account.topics.billing.endpoints).toEqual([
    { url: "https://a.example.com", name: "a" },
    { url: "https://b.example.com" },
  ]);
  expect(endpointsOf("shared")).toEqual(["https://ours.example.com", "https://theirs.example.com"]);
  let out = await outputs();
  expect(out.billing).toMatchObject({
    created: true,
    addedEndpoints: ["https://a.example.com", "https://b.example.com"],
  });
  expect(out.shared).toMatchObject({
    created: false,
    addedEndpoints: ["https://ours.example.com"],
    otherEndpoints: [{ url: "https://theirs.example.com" }],
  });

  // Nothing changed: the preview makes no API call.
  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 4 });
  expect(env.emu.requests()).toEqual([]);

  // Endpoints changed in place: one renamed, one removed, one added; no replace. The read functions read through the program.
  groups = {
    ...groups,
    billing: [{ url: "https://a.example.com", name: "alpha" }, { url: "https://c.example.com" }],
  };
  readFunctions = true;
  env.emu.resetLog();
  const changed = await s.up();
  expect(changed.summary.resourceChanges).toEqual({ same: 3, update: 1 });
  expect(writeCalls()).toEqual(["DELETE /topics/billing/endpoints", "POST /topics/billing/endpoints"]);
  expect(account.topics.billing.endpoints).toEqual([
    { url: "https://a.example.com", name: "alpha" },
    { url: "https://c.example.com" },
  ]);
  // The program reads before the engine acts: the group as the last up left it.
  expect(changed.outputs.billing.value.endpoints).toEqual([
    { url: "https://a.example.com", name: "a" },
    { url: "https://b.example.com", name: "" },
  ]);
  expect((changed.outputs.all.value as { name: string }[]).map((g) => g.name).sort()).toEqual([
    "billing",
    "shared",
    "temp",
  ]);
  readFunctions = false;

  // Outside Pulumi: someone adds an endpoint to billing and removes a declared one; temp is deleted.
  await env.client
    .urlGroups({ region: REGION, token })
    .addEndpoints("billing", [{ url: "https://foreign.example.com" }]);
  await env.client.urlGroups({ region: REGION, token }).removeEndpoints("billing", ["https://c.example.com"]);
  await env.client.urlGroups({ region: REGION, token }).delete("temp");
  const refreshed = await s.refresh();
  expect(refreshed.stdout).toContain(
    'URL group "billing" in eu-central-1: 1 endpoint(s) not declared by this stack, left alone: https://foreign.example.com',
  );
  out = await outputs();
  expect(out.temp).toBeUndefined();
  expect(out.billing).toMatchObject({
    endpoints: [{ url: "https://a.example.com", name: "alpha" }],
    otherEndpoints: [{ url: "https://foreign.example.com" }],
  });
  // The next up puts back what the stack declares and makes temp anew; the foreign endpoint stays.
  env.emu.resetLog();
  expect((await s.up()).summary.resourceChanges).toEqual({ same: 2, update: 1, create: 1 });
  expect(writeCalls()).toEqual(["POST /topics/billing/endpoints", "POST /topics/temp/endpoints"]);
  expect(endpointsOf("billing")).toEqual([
    "https://a.example.com",
    "https://c.example.com",
    "https://foreign.example.com",
  ]);

  // Bad input is refused at preview, one line per field naming what is allowed, with no API call.
  const good = groups;
  groups = {
    ...good,
    bad: [{ url: "ftp://x.example.com" }, { url: "https://d.example.com" }, { url: "https://d.example.com" }],
  };
  env.emu.resetLog();
  const refused = await s.stack.preview().then(
    () => "",
    (err: Error) => err.message,
  );
  expect(refused).toContain("endpoints.0.url: must be an http:// or https:// URL");
  expect(refused).toContain("https://d.example.com is listed more than once");
  expect(refused).not.toMatch(/\n\s+at /);
  expect(env.emu.requests()).toEqual([]);

  // The account's limit on groups: the error names the group, the 412 and the limits.
  account.record.max_topics = Object.keys(account.topics).length;
  groups = { ...good, overflow: [{ url: "https://o.example.com" }] };
  await expect(s.up()).rejects.toThrow(
    /could not add endpoints to URL group "overflow" in eu-central-1: the service answered 412: URL group limit reached.*max_topics/,
  );
  expect(account.topics.overflow).toBeUndefined();
  account.record.max_topics = 1000;
  groups = good;

  // A schedule publishes to temp: destroy names it (and not another group's), in one line, and keeps temp; the rest is done.
  account.schedules.nightly = { destination: "temp", paused: false };
  account.schedules.weekly = { destination: "billing", paused: false };
  const blocked = await s.destroy().then(
    () => "",
    (err: Error) => err.message,
  );
  expect(blocked).toMatch(
    /could not delete URL group "temp" in eu-central-1: schedule "nightly" still publishes to it \(the service answered 400: /,
  );
  expect(blocked).not.toMatch(/\n\s+at /);
  expect(account.topics.temp).toBeDefined();
  // Only what the stack made is gone: billing keeps the foreign endpoint, shared keeps theirs.
  expect(endpointsOf("billing")).toEqual(["https://foreign.example.com"]);
  expect(endpointsOf("shared")).toEqual(["https://theirs.example.com"]);
  // And the run's output says what was kept, and why.
  expect(blocked).toContain(
    'URL group "billing" in eu-central-1: kept, with 1 endpoint(s) this stack did not add (destroy removed only its own)',
  );
  expect(blocked).toContain(releasedMessage('URL group "shared"'));

  delete account.schedules.nightly;
  delete account.schedules.weekly;
  await s.destroy();
  expect(account.topics.temp).toBeUndefined();
  expect(Object.keys(account.topics).sort()).toEqual(["billing", "shared"]);
}, 300_000);
