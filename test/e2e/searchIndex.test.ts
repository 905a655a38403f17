/**
 * SearchIndex through the real engine (inline Automation API programs) against the emulator over
 * HTTP; API calls are counted in the emulator's request log.
 */
import { SearchIndex, getSearchIndexOutput, getSearchIndexesOutput } from "../../provider";
import type { SearchIndexArgs } from "../../provider";
import {
  apiCalls,
  backendContains,
  exported,
  failure,
  isSecret,
  testEnv,
  writes,
  type TestEnv,
} from "../support/harness";
import { releasedMessage } from "../../provider/resources/released";

const TYPE = "pulumi-nodejs:dynamic/mgmt:SearchIndex";

/** A program declaring the given indexes; the test changes `spec` between runs. */
function programOf(spec: () => Record<string, SearchIndexArgs>) {
  return async () => {
    const out: Record<string, unknown> = {};
    for (const [name, args] of Object.entries(spec())) {
      const idx = new SearchIndex(name, args);
      out[name] = {
        id: idx.id,
        name: idx.name,
        region: idx.region,
        deployedRegion: idx.deployedRegion,
        endpoint: idx.endpoint,
      };
      out[`${name}Token`] = idx.token;
    }
    return out;
  };
}

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(async () => {
  await env.cleanup();
});
beforeEach(() => {
  env.emu.emulator.reset();
});

const indexes = () => env.client.searchIndexes.list();

test("up creates with the right outputs, tokens secret everywhere, and a no-op preview and up make zero API calls", async () => {
  const s = await env.stack({
    program: programOf(() => ({
      a: { name: "orders", region: "eu-west-1", type: "free" },
      b: { region: "us-central1", type: "payg" },
    })),
  });
  const up = await s.up();
  expect(up.summary.resourceChanges).toEqual({ create: 3 });

  const live = await indexes();
  expect(live.map((i) => i.name).sort()).toEqual([expect.stringMatching(/^b-[0-9a-f]{8}$/), "orders"]);
  const orders = live.find((i) => i.name === "orders")!;
  expect(up.outputs.a.value).toEqual({
    id: orders.id,
    name: "orders",
    region: "eu-west-1",
    deployedRegion: "eu-west-1",
    endpoint: orders.endpoint,
  });
  expect(up.outputs.aToken).toEqual({ value: orders.token, secret: true });

  const [res] = (await exported(s, TYPE)).filter((r) => r.id === orders.id);
  expect(res.outputs).toMatchObject({
    name: "orders",
    type: "free",
    region: "eu-west-1",
    deployedRegion: "eu-west-1",
    endpoint: orders.endpoint,
  });
  // Only what a program connects with and what diff and the identity guard need (issue 13).
  // The two tokens are one secret: each secret output is re-encrypted at every step of an `up`.
  expect(Object.keys(res.outputs!).sort()).toEqual([
    "__provider",
    "deployedRegion",
    "endpoint",
    "managedBy",
    "name",
    "region",
    "tokens",
    "type",
  ]);
  expect(isSecret(res.outputs!.tokens)).toBe(true);

  const password = env.emu.users[0].password;
  expect(backendContains(s, [password, ...live.flatMap((i) => [i.token, i.read_only_token!])])).toEqual([]);

  // The serialized provider is small and carries nothing secret.
  const provider = String(res.inputs!.__provider);
  expect(provider.length).toBeLessThan(4096);
  expect(provider).not.toContain(password);

  env.emu.resetLog();
  const preview = await s.stack.preview();
  expect(preview.changeSummary).toEqual({ same: 3 });
  const again = await s.up();
  expect(again.summary.resourceChanges).toEqual({ same: 3 });
  expect(env.emu.requests()).toEqual([]);
});

test("plan limits and the other details are read when a program uses them, one GET per index, fresh after a plan change, never stored", async () => {
  let type: SearchIndexArgs["type"] = "free";
  const s = await env.stack({
    program: async () => {
      const idx = new SearchIndex("idx", { name: "details", region: "eu-west-1", type });
      return {
        maxVectorCount: idx.maxVectorCount,
        maxDailyQueries: idx.maxDailyQueries,
        customerId: idx.customerId,
        creationTime: idx.creationTime,
        inputEnrichmentEnabled: idx.inputEnrichmentEnabled,
      };
    },
  });
  const up = await s.up();
  const [live] = await indexes();
  expect(up.outputs.maxVectorCount).toEqual({ value: 10_000, secret: false });
  expect(up.outputs.customerId.value).toBe("alice@emulator.local");
  expect(up.outputs.creationTime.value).toBe(live.creation_time);
  expect(up.outputs.inputEnrichmentEnabled.value).toBe(live.input_enrichment_enabled);

  type = "payg";
  env.emu.resetLog();
  const changed = await s.up();
  expect(apiCalls(env.emu)).toEqual({ "POST /v2/search/:id/setplan": 1, "GET /v2/search/:id": 1 });
  expect(changed.outputs.maxVectorCount.value).toBe(200_000_000);
  expect(changed.outputs.maxDailyQueries.value).toBe(-1);

  const [res] = await exported(s, TYPE);
  for (const field of ["maxVectorCount", "maxDailyQueries", "customerId", "creationTime", "inputEnrichmentEnabled"])
    expect(res.outputs).not.toHaveProperty(field);

  // An index deleted out of band, not yet refreshed: the details read as absent, the preview runs.
  await env.client.searchIndexes.delete(live.id);
  env.emu.resetLog();
  const preview = await s.stack.preview();
  expect(preview.changeSummary).toEqual({ same: 2 });
  expect(apiCalls(env.emu)).toEqual({ "GET /v2/search/:id": 1 });
});

test("a name change renames in place; a region change replaces and deletes the old index", async () => {
  let spec: SearchIndexArgs = { name: "first", region: "eu-west-1", type: "free" };
  const s = await env.stack({ program: programOf(() => ({ idx: spec })) });
  await s.up();
  const [created] = await indexes();

  spec = { ...spec, name: "second" };
  const preview = await s.stack.preview();
  expect(preview.changeSummary).toEqual({ same: 1, update: 1 });
  env.emu.resetLog();
  await s.up();
  expect(apiCalls(env.emu)).toEqual({ "POST /v2/search/:id/rename": 1 });
  expect((await indexes()).map((i) => [i.id, i.name])).toEqual([[created.id, "second"]]);

  spec = { ...spec, region: "us-central1" };
  const replacePreview = await s.stack.preview();
  expect(replacePreview.changeSummary).toEqual({ same: 1, replace: 1 });
  await s.up();
  const afterRegion = await indexes();
  expect(afterRegion).toHaveLength(1);
  expect(afterRegion[0]).toMatchObject({ name: "second", region: "us-central1" });
  expect(afterRegion[0].id).not.toBe(created.id);

  const [res] = await exported(s, TYPE);
  expect(res.id).toBe(afterRegion[0].id);
});

test("a deployed region that differs from the requested one causes no diff", async () => {
  env.emu.emulator.placement["us-central1"] = "eu-west-1";
  const s = await env.stack({
    program: programOf(() => ({ idx: { name: "placed", region: "us-central1", type: "free" } })),
  });
  const up = await s.up();
  expect(up.outputs.idx.value).toMatchObject({ region: "us-central1", deployedRegion: "eu-west-1" });
  expect((await indexes())[0].region).toBe("eu-west-1");
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 2 });
  await s.refresh();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 2 });
});

test("refresh drops an index deleted out of band, reports an out-of-band rename, and up restores the name", async () => {
  const s = await env.stack({
    program: programOf(() => ({
      keep: { name: "keep", region: "eu-west-1", type: "free" },
      gone: { name: "gone", region: "eu-west-1", type: "free" },
    })),
  });
  await s.up();
  const live = await indexes();
  const gone = live.find((i) => i.name === "gone")!;
  const keep = live.find((i) => i.name === "keep")!;
  await env.client.searchIndexes.delete(gone.id);
  await env.client.searchIndexes.rename(keep.id, "renamed-elsewhere");

  env.emu.resetLog();
  const refresh = await s.refresh();
  // One shared list for both; the missing one is confirmed by id before it is dropped.
  expect(apiCalls(env.emu)).toEqual({ "GET /v2/search": 1, "GET /v2/search/:id": 1 });
  expect(refresh.summary.resourceChanges).toMatchObject({ delete: 1, update: 1 });
  const state = await exported(s, TYPE);
  expect(state.map((r) => r.outputs!.name)).toEqual(["renamed-elsewhere"]);

  const preview = await s.stack.preview();
  expect(preview.changeSummary).toMatchObject({ update: 1, create: 1 });
  await s.up();
  expect((await indexes()).map((i) => i.name).sort()).toEqual(["gone", "keep"]);
  expect((await indexes()).find((i) => i.name === "keep")!.id).toBe(keep.id);
});

test("a list with a region no client knows yet and 'paid' for payg still refreshes; the unknown value is named in a warning", async () => {
  const s = await env.stack({
    program: programOf(() => ({
      a: { name: "moved", region: "eu-west-1", type: "free" },
      b: { name: "billed", region: "eu-west-1", type: "payg" },
    })),
  });
  await s.up();
  const rows = env.emu.emulator.data.indexes;
  (rows.find((r) => r.record.name === "moved")!.record as { region: string }).region = "ap-south-9";
  (rows.find((r) => r.record.name === "billed")!.record as { type: string }).type = "paid";

  const refresh = await s.refresh();
  expect(refresh.stdout + refresh.stderr).toMatch(
    /the service reported search index region "ap-south-9", which this version of pulumi-mgmt does not know/,
  );
  const state = await exported(s, TYPE);
  expect(state.find((r) => r.outputs!.name === "moved")!.outputs).toMatchObject({
    region: "eu-west-1",
    deployedRegion: "ap-south-9",
  });
  expect(state.find((r) => r.outputs!.name === "billed")!.outputs).toMatchObject({ type: "payg" });
  // Neither the deployed region nor the other spelling of the plan is a change to make.
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 3 });
});

test("adopt takes over an existing index by id or by name, and fails clearly for a missing one", async () => {
  const byId = await env.client.searchIndexes.create({ name: "legacy-one", region: "eu-west-1", type: "free" });
  await env.client.searchIndexes.create({ name: "legacy-two", region: "us-central1", type: "payg" });
  let spec: Record<string, SearchIndexArgs> = {
    one: { name: "legacy-one", region: "eu-west-1", type: "free", adopt: byId.id },
    two: { name: "legacy-two", region: "us-central1", type: "payg", adopt: "legacy-two" },
  };
  const s = await env.stack({ program: programOf(() => spec) });
  env.emu.resetLog();
  await s.up();
  expect(apiCalls(env.emu)["POST /v2/search"]).toBeUndefined();
  expect(await indexes()).toHaveLength(2);
  const state = await exported(s, TYPE);
  expect(state.map((r) => r.id).sort()).toEqual((await indexes()).map((i) => i.id).sort());

  spec = { ...spec, three: { name: "nowhere", region: "eu-west-1", type: "free", adopt: "no-such-index" } };
  await expect(s.up()).rejects.toThrow(/adopt: no search index with id or name "no-such-index" exists/);
  spec = { ...spec, three: { name: "legacy-one", region: "us-central1", type: "free", adopt: "legacy-one" } };
  await expect(s.up()).rejects.toThrow(/deployed in region "eu-west-1" but region is "us-central1"/);
  expect(await indexes()).toHaveLength(2);

  // The engine says "deleted"; the run's own output says each was released and still exists.
  const destroyed = await s.destroy();
  for (const i of await indexes())
    expect(destroyed.stdout).toContain(releasedMessage(`search index "${i.name}" (${i.id})`));
  expect(await indexes()).toHaveLength(2);
});

test("a taken explicit name is a clear error that points to adopt", async () => {
  await env.client.searchIndexes.create({ name: "someone-elses", region: "eu-west-1", type: "free" });
  const t = await env.stack({
    stackName: "taken",
    program: programOf(() => ({ mine: { name: "someone-elses", region: "eu-west-1", type: "free" } })),
  });
  await expect(t.up()).rejects.toThrow(
    /a search index named "someone-elses" already exists and this stack did not create it: set adopt: "someone-elses" to manage it, or choose another name/,
  );
  expect(await indexes()).toHaveLength(1);
});

test("destroy deletes every index", async () => {
  const s = await env.stack({
    program: programOf(() => ({
      a: { region: "eu-west-1", type: "free" },
      b: { region: "eu-west-1", type: "payg" },
      c: { region: "us-central1", type: "free" },
    })),
  });
  await s.up();
  expect(await indexes()).toHaveLength(3);
  await env.client.searchIndexes.delete((await indexes())[0].id); // already gone counts as deleted
  await s.destroy();
  expect(await exported(s, TYPE)).toEqual([]);
  expect(await indexes()).toEqual([]);
});

test("getSearchIndex and getSearchIndexes read through the program's config; their results are secret", async () => {
  const existing = await env.client.searchIndexes.create({ name: "read-me", region: "us-central1", type: "payg" });
  const s = await env.stack({
    program: async () => {
      const one = getSearchIndexOutput({ id: existing.id });
      const all = getSearchIndexesOutput();
      return { one, all, count: all.apply((list) => list.length) };
    },
  });
  const up = await s.up();
  expect(up.outputs.one.secret).toBe(true);
  expect(up.outputs.one.value).toMatchObject({
    id: existing.id,
    name: "read-me",
    region: "us-central1",
    type: "payg",
    token: existing.token,
    readOnlyToken: existing.read_only_token,
  });
  expect(up.outputs.all.value[0].throughputVector).toEqual([]); // the list carries the metrics
  expect(up.outputs.count).toEqual({ value: 1, secret: true });
  expect(backendContains(s, [existing.token, existing.read_only_token!])).toEqual([]);
});

// Bad input (an empty, slashed, over-long or non-string name, an unknown region or type, "fixed",
// an empty adopt): every case in test/reliability/hostileInput.test.ts, through the providers,
// and an unknown region through the engine at preview and up.

describe("faults", () => {
  test("429 with Retry-After, 503 and dropped connections during up, refresh and destroy", async () => {
    const s = await env.stack({
      program: programOf(() => ({
        a: { name: "fa", region: "eu-west-1", type: "free" },
        b: { name: "fb", region: "eu-west-1", type: "free" },
      })),
    });
    env.emu.addFault({ method: "POST", path: "^/v2/search$", status: 429, retryAfter: 1 });
    env.emu.addFault({ method: "POST", path: "^/v2/search$", status: 503 });
    const up = await s.up();
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    // What a create waits for is on the engine's progress (waitNotice.ts); a create answered 503
    // is never resent as it is (it is looked up), and so never announced as retried.
    expect(up.stdout).toMatch(/POST \/v2\/search: rate limited \(429\); trying again in \d+\.\d s \(retry 1 of 60\)/);
    expect(up.stdout).not.toMatch(/POST \/v2\/search: answered 503; trying again/);
    expect(
      env.emu
        .requests({ route: "POST /v2/search" })
        .map((r) => r.status)
        .sort(),
    ).toEqual([200, 200, 429, 503]);

    env.emu.addFault({ method: "GET", path: "^/v2/search$", drop: true });
    env.emu.addFault({ method: "GET", path: "^/v2/search$", status: 503 });
    env.emu.addFault({ method: "GET", path: "^/v2/search$", status: 429, retryAfter: 1 });
    await s.refresh();
    expect((await exported(s, TYPE)).map((r) => r.outputs!.name).sort()).toEqual(["fa", "fb"]);

    env.emu.addFault({ method: "DELETE", drop: true });
    env.emu.addFault({ method: "DELETE", status: 503 });
    await s.destroy();
    expect(await exported(s, TYPE)).toEqual([]);
    expect(await indexes()).toEqual([]);
  });

  test("a create whose answer is lost leaves exactly one index, tracked in state", async () => {
    const s = await env.stack({
      program: programOf(() => ({ a: { name: "lost", region: "eu-west-1", type: "free" } })),
    });
    env.emu.addFault({ method: "POST", path: "^/v2/search$", commitThenDrop: true });
    const up = await s.up();
    expect(up.summary.resourceChanges).toEqual({ create: 2 });
    const live = await indexes();
    expect(live).toHaveLength(1);
    const [res] = await exported(s, TYPE);
    expect(res.id).toBe(live[0].id);
    expect(env.emu.requests({ route: "POST /v2/search" })).toHaveLength(1); // never blindly re-sent
  });

  test("an adopt that renames and then fails to set the plan keeps the renamed index in the stack: the next up sets the plan, no duplicate", async () => {
    const legacy = await env.client.searchIndexes.create({ name: "legacy", region: "eu-west-1", type: "free" });
    const s = await env.stack({
      program: programOf(() => ({ a: { name: "renamed", region: "eu-west-1", type: "payg", adopt: "legacy" } })),
    });
    env.emu.addFault({ method: "POST", path: "/setplan$", status: 400 });
    const message = await failure(s.up());
    // The failure's own line, no stack trace.
    expect(message).toMatch(
      /search index "renamed".*400: injected fault \(what was done is kept in the stack; the next `pulumi up` does the rest\)/,
    );
    expect(message).not.toMatch(/\n\s+at /);
    expect(await env.client.searchIndexes.get(legacy.id)).toMatchObject({ name: "renamed", type: "free" });
    // The host answered "created, but failed to initialise": the index is in the stack as it now is.
    const [failed] = await exported(s, TYPE);
    expect(failed.id).toBe(legacy.id);
    expect(failed.outputs).toMatchObject({ name: "renamed", type: "free", found: { name: "legacy", type: "free" } });
    expect(failed.outputs!.__provider).toBeDefined();
    expect(backendContains(s, [legacy.token])).toEqual([]);

    env.emu.resetLog();
    await s.up();
    expect(apiCalls(env.emu)["POST /v2/search"]).toBeUndefined();
    expect(apiCalls(env.emu)["POST /v2/search/:id/rename"]).toBeUndefined();
    expect((await indexes()).map((i) => [i.id, i.name, i.type])).toEqual([[legacy.id, "renamed", "payg"]]);
    expect((await exported(s, TYPE)).map((r) => r.id)).toEqual([legacy.id]);

    // Released on destroy with the name and plan it was found with.
    await s.destroy();
    expect(await env.client.searchIndexes.get(legacy.id)).toMatchObject({ name: "legacy", type: "free" });
  });

  test("a create that times out is looked up before anything else", async () => {
    const s = await env.stack({
      program: programOf(() => ({ a: { name: "slow", region: "eu-west-1", type: "free" } })),
      mgmt: { timeoutMs: 1000 },
    });
    env.emu.addFault({ method: "POST", path: "^/v2/search$", delayMs: 2000 });
    const up = await s.up();
    expect(up.summary.resourceChanges).toEqual({ create: 2 });
    // The delayed create may commit after the look-up: either way exactly one index, in state.
    await new Promise((r) => setTimeout(r, 1500));
    const live = await indexes();
    expect(live).toHaveLength(1);
    expect((await exported(s, TYPE))[0].id).toBe(live[0].id);
  });
});
