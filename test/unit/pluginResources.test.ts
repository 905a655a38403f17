/**
 * The `mgmt` plugin's resource calls, over real gRPC against an in-process emulator: the built
 * plugin serves Check, Diff, Create, Read, Update and Delete through the dynamic resources' own
 * providers, with secrets wrapped both ways and unknowns in previews. No Pulumi engine runs.
 */
import {
  CheckRequest,
  ConfigureRequest,
  DiffResponse,
  PropertyDiff,
  type CheckResponse,
  type ConfigureResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { ServiceError } from "@grpc/grpc-js";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { SECRET_SIG, SIG_KEY, type Plain } from "../../provider/plugin/properties";
import { pluginClient, promised, startPlugin, stopPlugins } from "../support/pluginProcess";
import { ENGINE_UNKNOWN, PluginRun, initFailed, rejection, secret, struct, urnOf } from "../support/pluginCalls";

const TYPE = "SearchIndex";
let emu: RunningEmulator;
let run: PluginRun;

beforeAll(async () => {
  emu = await startEmulator();
  run = await new PluginRun(emu).nextRun();
});
afterAll(async () => {
  run?.close();
  stopPlugins();
  await emu?.close();
});

const plain = (s: Struct | undefined) => run.plain(s);
const check = (news: Record<string, Plain>) => run.check(TYPE, "docs", news);
const diff = (id: string, olds: Struct, news: Record<string, Plain>) => run.diff(TYPE, "docs", id, olds, news);

test("SearchIndex: Check, Diff, Create, Read, Update and Delete through the dynamic resource's provider", async () => {
  // Check: a bad plan fails in one line naming the field; nothing is sent.
  emu.resetLog();
  const bad = await check({ name: "docs", region: "eu-west-1", type: "gold" });
  expect(bad.getFailuresList().map((f) => f.getProperty())).toEqual(["type"]);
  expect(bad.getFailuresList()[0].getReason()).toMatch(/^type: [^\n]+$/);
  expect(emu.requests()).toEqual([]);

  const inputs = { name: "docs", region: "eu-west-1", type: "free" };
  const checked = await check(inputs);
  expect(checked.getFailuresList()).toEqual([]);
  expect(plain(checked.getInputs())).toEqual(inputs);

  // A preview's Create sends nothing and answers the inputs, the rest unknown.
  const preview = await run.create(TYPE, "docs", checked.getInputs(), true);
  expect(plain(preview.getProperties())).toMatchObject({ ...inputs, deployedRegion: ENGINE_UNKNOWN });
  expect(emu.requests({ method: "POST" })).toEqual([]);

  const created = await run.create(TYPE, "docs", checked.getInputs());
  const id = created.getId();
  const { record } = emu.emulator.data.indexes[0];
  expect(id).toBe(record.id);
  const outs = plain(created.getProperties());
  expect(outs).toMatchObject({
    ...inputs,
    deployedRegion: "eu-west-1",
    tokens: secret({ token: record.token, readOnlyToken: record.read_only_token ?? null }),
  });

  // Diff: nothing changed → no diffs; a changed plan → an update in place, in detail.
  const none = await diff(id, created.getProperties()!, inputs);
  expect(none.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_NONE);
  expect(none.getDiffsList()).toEqual([]);
  const changed = await diff(id, created.getProperties()!, { ...inputs, type: "payg" });
  expect(changed.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_SOME);
  expect(changed.getReplacesList()).toEqual([]);
  expect(changed.getDiffsList()).toEqual(["type"]);
  expect(changed.getDetaileddiffMap().get("type")?.getKind()).toBe(PropertyDiff.Kind.UPDATE);
  const moved = await diff(id, created.getProperties()!, { ...inputs, region: "us-central1" });
  expect(moved.getReplacesList()).toEqual(["region"]);
  expect(moved.getDetaileddiffMap().get("region")?.getKind()).toBe(PropertyDiff.Kind.UPDATE_REPLACE);

  // Update: the plan set in place, outputs still secret.
  const updated = await run.update(TYPE, "docs", id, created.getProperties(), { ...inputs, type: "payg" });
  expect(plain(updated.getProperties())).toMatchObject({ type: "payg", tokens: { [SIG_KEY]: SECRET_SIG } });
  expect(emu.emulator.data.indexes[0].record.type).toBe("payg");

  // Read: the index as it is.
  const read = (resourceId: string, props: Struct | undefined) => run.read(TYPE, "docs", resourceId, props);
  const found = await read(id, updated.getProperties());
  expect(found.getId()).toBe(id);
  expect(plain(found.getProperties())).toMatchObject({ type: "payg", tokens: { [SIG_KEY]: SECRET_SIG } });
  expect(plain(found.getInputs())).toMatchObject({ name: "docs", type: "payg" });

  const spare = await run.create(TYPE, "docs", struct({ ...inputs, name: "spare" }));
  plain(spare.getProperties());

  // The next run: the spare index deleted out of band reads as gone (empty id); Delete deletes.
  emu.emulator.data.indexes = emu.emulator.data.indexes.filter((i) => i.record.id !== spare.getId());
  await run.nextRun();
  expect((await read(spare.getId(), spare.getProperties())).getId()).toBe("");
  await run.delete(TYPE, "docs", id, updated.getProperties());
  expect(emu.emulator.data.indexes).toEqual([]);

  // No token was ever answered in plain text.
  const plainText = run.plainText();
  expect(plainText).not.toContain(record.token);
  expect(plainText).not.toContain(record.read_only_token);
});

test("SearchIndex: a create or update that did part of its work answers created-but-failed-to-initialise, with the index as it now is", async () => {
  const legacy = await run.create(TYPE, "legacy", struct({ name: "legacy", region: "eu-west-1", type: "free" }));
  const record = emu.emulator.data.indexes.find((i) => i.record.id === legacy.getId())!.record;

  // Create: an adopt renames, then its set-plan fails.
  emu.emulator.controls.addFault({ method: "POST", path: "/setplan$", status: 400, times: 1 });
  const adopt = { name: "renamed", region: "eu-west-1", type: "payg", adopt: "legacy" };
  const created = initFailed(await rejection(run.create(TYPE, "adopted", struct(adopt))));
  expect(created.getId()).toBe(record.id);
  expect(plain(created.getProperties())).toMatchObject({
    name: "renamed",
    type: "free",
    adopt: "legacy",
    found: { name: "legacy", type: "free" },
    tokens: { [SIG_KEY]: SECRET_SIG },
  });
  expect(plain(created.getInputs())).toEqual(adopt);
  expect(created.getReasonsList()).toEqual([
    expect.stringMatching(
      /^search index "renamed": [^\n]*400: injected fault \(what was done is kept in the stack; [^\n]*\)$/,
    ),
  ]);
  expect(record).toMatchObject({ name: "renamed", type: "free" });

  // Update: a rename, then its set-plan fails; the rename is reported, the plan stays as it was.
  emu.emulator.controls.addFault({ method: "POST", path: "/setplan$", status: 400, times: 1 });
  const changed = { name: "renamed-again", region: "eu-west-1", type: "payg", adopt: "legacy" };
  const updated = initFailed(await rejection(run.update(TYPE, "adopted", record.id, created.getProperties(), changed)));
  expect(updated.getId()).toBe(record.id);
  expect(plain(updated.getProperties())).toMatchObject({
    name: "renamed-again",
    type: "free",
    found: { name: "legacy", type: "free" },
    tokens: { [SIG_KEY]: SECRET_SIG },
  });

  // A failure before anything changed is a plain failure, with no object to record.
  emu.emulator.controls.addFault({ method: "POST", path: "/setplan$", status: 400, times: 1 });
  const unchanged = await rejection(
    run.update(TYPE, "adopted", record.id, updated.getProperties(), { ...changed, type: "payg" }),
  );
  expect((unchanged as ServiceError).metadata.get("grpc-status-details-bin")).toEqual([]);
  expect((unchanged as ServiceError).details).toMatch(
    /^search index "renamed-again" \([^)]+\): [^\n]*400: injected fault$/,
  );

  const plainText = run.plainText();
  expect(plainText).not.toContain(record.token);
});

test("SearchIndex: a previewed Check with an unknown plan sends nothing and fails nothing", async () => {
  emu.resetLog();
  const res = await check({ name: "docs", region: "eu-west-1", type: ENGINE_UNKNOWN });
  expect(res.getFailuresList()).toEqual([]);
  expect(emu.requests()).toEqual([]);
});

test("SearchIndex: an adopted index whose region is not known at preview shows a possible change, not a failure", async () => {
  const olds = struct({ name: "docs", region: "eu-west-1", type: "free", adopt: "docs" });
  const res = await diff("idx-1", olds, { adopt: "docs", region: ENGINE_UNKNOWN, type: "free" });
  expect(res.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_SOME);
  expect(res.getReplacesList()).toEqual([]);
  // A replacement whose name is not known yet may keep the name: the preview shows it freed first.
  const moving = await diff("idx-1", struct({ name: "docs", region: "eu-west-1", type: "free" }), {
    name: ENGINE_UNKNOWN,
    region: "us-central1",
    type: "free",
  });
  expect([moving.getReplacesList(), moving.getDeletebeforereplace()]).toEqual([["region"], true]);
  // Known and different, it is refused as before: an adopted index never moves.
  await expect(diff("idx-1", olds, { adopt: "docs", region: "us-central1", type: "free" })).rejects.toThrow(
    /adopted in region "eu-west-1": an index cannot move/,
  );
});

test("Cancel (Ctrl-C): a create waiting out a Retry-After is abandoned at once and never resent; one already sent keeps its answer", async () => {
  const cancelled = await new PluginRun(emu).nextRun();
  try {
    emu.resetLog();
    emu.addFault({ method: "POST", path: "^/v2/search$", status: 429, retryAfter: 30, times: 5 });
    const inputs = { name: "cancelled", region: "eu-west-1", type: "free" };
    const checked = await cancelled.check(TYPE, "docs", inputs);
    const creating = cancelled.create(TYPE, "docs", checked.getInputs()).then(
      () => "created",
      (err: { details?: string }) => err.details ?? String(err),
    );
    while (emu.requests({ method: "POST" }).length === 0) await new Promise((r) => setTimeout(r, 50));
    await promised<Empty>((cb) => cancelled.client.cancel(new Empty(), cb));
    const late = new Promise<string>((r) => setTimeout(() => r("still waiting 5 s after Cancel"), 5000).unref());
    expect(await Promise.race([creating, late])).toMatch(/^the operation was cancelled \(Ctrl-C or a stopped update\)/);
    // Nothing more, ever: no resend of the create, and a later call fails before sending.
    await expect(cancelled.check(TYPE, "docs", { ...inputs, name: "after" })).resolves.toBeDefined();
    await expect(cancelled.create(TYPE, "docs", checked.getInputs())).rejects.toMatchObject({
      details: expect.stringMatching(/^the operation was cancelled/),
    });
    expect(emu.requests({ method: "POST" })).toHaveLength(1);
  } finally {
    emu.emulator.controls.clearFaults();
    cancelled.close();
  }

  // A create on the wire when Cancel comes: the engine waits for it, and it ends as the service
  // answers (abandoning it would leave an index the stack does not know of).
  const inFlight = await new PluginRun(emu).nextRun();
  try {
    emu.addFault({ method: "POST", path: "^/v2/search$", hold: true, times: 1 });
    const checked = await inFlight.check(TYPE, "docs", { name: "on-the-wire", region: "eu-west-1", type: "free" });
    const creating = inFlight.create(TYPE, "docs", checked.getInputs());
    await emu.emulator.controls.heldRequests(1);
    await promised<Empty>((cb) => inFlight.client.cancel(new Empty(), cb));
    emu.emulator.controls.openGate();
    const created = await creating;
    expect(emu.emulator.data.indexes.map((i) => i.record.name)).toContain("on-the-wire");
    expect(created.getId()).toBe(emu.emulator.data.indexes.find((i) => i.record.name === "on-the-wire")!.record.id);
  } finally {
    emu.emulator.controls.clearFaults();
    emu.emulator.controls.closeGate();
    inFlight.close();
  }
});

test("SearchIndex: a name left out is drawn once, from the engine's seed, and kept", async () => {
  const first = plain((await check({ region: "eu-west-1", type: "free" })).getInputs());
  expect(first.autoName).toMatch(/^docs-[0-9a-f]{8}$/);
  expect(first.name).toBe(first.autoName);
});

test("a setting missing (no mgmt:baseUrl) fails Check with no property: the engine shows the reason as the resource's problem, in one line", async () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("MGMT_")));
  const client = pluginClient((await startPlugin([], env)).port);
  await promised<ConfigureResponse>((cb) => client.configure(new ConfigureRequest(), cb));
  const res = await promised<CheckResponse>((cb) =>
    client.check(
      new CheckRequest()
        .setUrn(urnOf(TYPE, "docs"))
        .setName("docs")
        .setNews(struct({ name: "docs", region: "eu-west-1", type: "free" }))
        .setRandomseed(new Uint8Array(32)),
      cb,
    ),
  );
  client.close();
  expect(res.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
    [
      "",
      expect.stringMatching(
        /^mgmt:baseUrl is not set \(needed to reach the management API\): run `pulumi config set mgmt:baseUrl/,
      ),
    ],
  ]);
});
