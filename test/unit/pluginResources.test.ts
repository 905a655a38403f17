/**
 * The `mgmt` plugin's resource calls, over real gRPC against an in-process emulator: the built
 * plugin serves Check, Diff, Create, Read, Update and Delete through the dynamic resources' own
 * providers, with secrets wrapped both ways and unknowns in previews. No Pulumi engine runs.
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as pulumi from "@pulumi/pulumi";
import type { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import {
  CheckRequest,
  ConfigureRequest,
  CreateRequest,
  DeleteRequest,
  DiffRequest,
  DiffResponse,
  PropertyDiff,
  ReadRequest,
  UpdateRequest,
  type CheckResponse,
  type ConfigureResponse,
  type CreateResponse,
  type ReadResponse,
  type UpdateResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import type { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { SECRET_SIG, SIG_KEY, type Plain } from "../../provider/plugin/properties";
import { pluginClient, promised, startPlugin, stopPlugins } from "../support/pluginProcess";

/** What the engine sends for a value not known until apply. */
const ENGINE_UNKNOWN = pulumi.runtime.unknownValue;
const URN = "urn:pulumi:dev::proj::mgmt:index:SearchIndex::docs";
let emu: RunningEmulator;
let client: ResourceProviderClient;
/** Every response's JSON, to look for a token in plain text. */
const seen: string[] = [];

const struct = (values: Record<string, Plain>) => Struct.fromJavaScript(values);
const plain = (s: Struct | undefined) => {
  const json = s?.toJavaScript() ?? {};
  seen.push(JSON.stringify(json));
  return json;
};
const secret = (value: Plain) => ({ [SIG_KEY]: SECRET_SIG, value });

/**
 * A plugin process configured with the emulator's address and the first user's credentials,
 * the password secret. One process is one engine run (it remembers what the run did: takeovers,
 * lists read once), so a later run starts a new one.
 */
async function configuredPlugin(): Promise<ResourceProviderClient> {
  const { port } = await startPlugin();
  const c = pluginClient(port);
  const user = emu.users[0];
  const req = new ConfigureRequest().setArgs(struct({ password: secret(user.password) }));
  req.getVariablesMap().set("mgmt:config:baseUrl", emu.baseUrl);
  req.getVariablesMap().set("mgmt:config:username", user.username);
  await promised<ConfigureResponse>((cb) => c.configure(req, cb));
  return c;
}

beforeAll(async () => {
  emu = await startEmulator();
  client = await configuredPlugin();
});
afterAll(async () => {
  client?.close();
  stopPlugins();
  await emu?.close();
});

const check = (news: Record<string, Plain>, olds: Record<string, Plain> = {}) =>
  promised<CheckResponse>((cb) =>
    client.check(
      new CheckRequest()
        .setUrn(URN)
        .setName("docs")
        .setOlds(struct(olds))
        .setNews(struct(news))
        .setRandomseed(new Uint8Array(32)),
      cb,
    ),
  );
const diff = (id: string, olds: Struct, news: Record<string, Plain>) =>
  promised<DiffResponse>((cb) =>
    client.diff(new DiffRequest().setUrn(URN).setId(id).setOlds(olds).setNews(struct(news)), cb),
  );

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
  const preview = await promised<CreateResponse>((cb) =>
    client.create(new CreateRequest().setUrn(URN).setProperties(checked.getInputs()).setPreview(true), cb),
  );
  expect(plain(preview.getProperties())).toMatchObject({ ...inputs, deployedRegion: ENGINE_UNKNOWN });
  expect(emu.requests({ method: "POST" })).toEqual([]);

  const created = await promised<CreateResponse>((cb) =>
    client.create(new CreateRequest().setUrn(URN).setProperties(checked.getInputs()), cb),
  );
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
  const updated = await promised<UpdateResponse>((cb) =>
    client.update(
      new UpdateRequest()
        .setUrn(URN)
        .setId(id)
        .setOlds(created.getProperties())
        .setNews(struct({ ...inputs, type: "payg" })),
      cb,
    ),
  );
  expect(plain(updated.getProperties())).toMatchObject({ type: "payg", tokens: { [SIG_KEY]: SECRET_SIG } });
  expect(emu.emulator.data.indexes[0].record.type).toBe("payg");

  // Read: the index as it is.
  const read = (resourceId: string, props: Struct | undefined) =>
    promised<ReadResponse>((cb) =>
      client.read(new ReadRequest().setUrn(URN).setId(resourceId).setProperties(props), cb),
    );
  const found = await read(id, updated.getProperties());
  expect(found.getId()).toBe(id);
  expect(plain(found.getProperties())).toMatchObject({ type: "payg", tokens: { [SIG_KEY]: SECRET_SIG } });
  expect(plain(found.getInputs())).toMatchObject({ name: "docs", type: "payg" });

  const spare = await promised<CreateResponse>((cb) =>
    client.create(new CreateRequest().setUrn(URN).setProperties(struct({ ...inputs, name: "spare" })), cb),
  );
  plain(spare.getProperties());

  // The next run: the spare index deleted out of band reads as gone (empty id); Delete deletes.
  emu.emulator.data.indexes = emu.emulator.data.indexes.filter((i) => i.record.id !== spare.getId());
  client.close();
  client = await configuredPlugin();
  expect((await read(spare.getId(), spare.getProperties())).getId()).toBe("");
  await promised<Empty>((cb) =>
    client.delete(new DeleteRequest().setUrn(URN).setId(id).setProperties(updated.getProperties()), cb),
  );
  expect(emu.emulator.data.indexes).toEqual([]);

  // No token was ever answered in plain text.
  const plainText = seen
    .join("\n")
    .replace(/"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","value":\{[^}]*\}/g, "");
  expect(plainText).not.toContain(record.token);
  expect(plainText).not.toContain(record.read_only_token);
});

test("SearchIndex: a previewed Check with an unknown plan sends nothing and fails nothing", async () => {
  emu.resetLog();
  const res = await check({ name: "docs", region: "eu-west-1", type: ENGINE_UNKNOWN });
  expect(res.getFailuresList()).toEqual([]);
  expect(emu.requests()).toEqual([]);
});

test("SearchIndex: a name left out is drawn once, from the engine's seed, and kept", async () => {
  const first = plain((await check({ region: "eu-west-1", type: "free" })).getInputs());
  expect(first.autoName).toMatch(/^docs-[0-9a-f]{8}$/);
  expect(first.name).toBe(first.autoName);
});
