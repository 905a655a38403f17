/**
 * `pulumi import` through the `mgmt` plugin, over real gRPC against an in-process emulator: the
 * engine's Read of an import carries the id alone (no recorded state, no inputs), and each
 * provider's `read` answers the inputs a program would declare and outputs recording everything
 * as found, so that a later Delete gives back or leaves alone exactly as after `adopt`
 * (docs/ownership.md, "Import"). No Pulumi engine runs (test/e2e/pluginImport.test.ts does).
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import type { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import {
  CheckRequest,
  ConfigureRequest,
  DeleteRequest,
  ReadRequest,
  UpdateRequest,
  type CheckResponse,
  type ConfigureResponse,
  type ReadResponse,
  type UpdateResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import type { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { MgmtClient } from "../../provider/api/client";
import { resolveSettings } from "../../provider/config";
import { SECRET_SIG, SIG_KEY, type Plain } from "../../provider/plugin/properties";
import { pluginClient, promised, startPlugin, stopPlugins } from "../support/pluginProcess";

let emu: RunningEmulator;
let client: ResourceProviderClient;

const struct = (values: Record<string, Plain>) => Struct.fromJavaScript(values);
const plain = (s: Struct | undefined) => s?.toJavaScript() ?? {};
const secret = (value: Plain) => ({ [SIG_KEY]: SECRET_SIG, value });
const urn = (type: string) => `urn:pulumi:dev::proj::mgmt:index:${type}::imported`;
const user = () => emu.users[0];
const account = (region: string) => emu.emulator.data.accounts.find((a) => a.record.region === region)!;

/** The engine's Read of an import: the id, and no properties or inputs. */
const importRead = (type: string, id: string) =>
  promised<ReadResponse>((cb) => client.read(new ReadRequest().setUrn(urn(type)).setId(id), cb));
const remove = (type: string, id: string, props: Struct | undefined) =>
  promised<Empty>((cb) => client.delete(new DeleteRequest().setUrn(urn(type)).setId(id).setProperties(props), cb));
/** The Check a planned import makes: the read inputs as both olds and news. */
const check = (type: string, inputs: Struct | undefined) =>
  promised<CheckResponse>((cb) =>
    client.check(
      new CheckRequest()
        .setUrn(urn(type))
        .setName("imported")
        .setOlds(inputs)
        .setNews(inputs)
        .setRandomseed(new Uint8Array(32)),
      cb,
    ),
  );

beforeAll(async () => {
  emu = await startEmulator();
  const { port } = await startPlugin();
  client = pluginClient(port);
  const req = new ConfigureRequest().setArgs(
    struct({ password: secret(user().password), messagingToken: secret(account("eu-central-1").record.token) }),
  );
  req.getVariablesMap().set("mgmt:config:baseUrl", emu.baseUrl);
  req.getVariablesMap().set("mgmt:config:regionalMessagingUrl", emu.regionalMessagingUrl);
  req.getVariablesMap().set("mgmt:config:username", user().username);
  await promised<ConfigureResponse>((cb) => client.configure(req, cb));
});
afterAll(async () => {
  client?.close();
  stopPlugins();
  await emu?.close();
});

test("SearchIndex: an import reads the index by id as adopted, and destroy releases it", async () => {
  const api = new MgmtClient(
    resolveSettings(
      (key) =>
        ({ "mgmt:baseUrl": emu.baseUrl, "mgmt:username": user().username, "mgmt:password": user().password })[key],
      {},
    ),
  );
  const index = await api.searchIndexes.create({ name: "docs", region: "eu-west-1", type: "free" });
  const read = await importRead("SearchIndex", index.id);
  expect(read.getId()).toBe(index.id);
  const inputs = { name: "docs", region: "eu-west-1", type: "free", adopt: index.id };
  expect(plain(read.getInputs())).toEqual(inputs);
  const outs = plain(read.getProperties());
  expect(outs).toMatchObject({
    ...inputs,
    deployedRegion: "eu-west-1",
    tokens: secret({ token: index.token, readOnlyToken: index.read_only_token ?? null }),
  });
  expect(outs).not.toHaveProperty("found");
  // The planned import's Check of what Read answered passes: the generated program is valid.
  expect((await check("SearchIndex", read.getInputs())).getFailuresList()).toEqual([]);

  await remove("SearchIndex", index.id, read.getProperties());
  expect(emu.emulator.data.indexes.map((i) => i.record.id)).toEqual([index.id]);
});

test("MessagingBudget: the budget found is the one destroy gives back after the stack changes it", async () => {
  const target = account("us-east-1").record;
  target.budget = 50;
  const read = await importRead("MessagingBudget", target.id);
  expect(read.getId()).toBe(target.id);
  expect(plain(read.getInputs())).toEqual({ accountId: target.id, budget: 50 });
  expect(plain(read.getProperties())).toMatchObject({ budget: 50, previousBudget: 50, budgetSet: 50 });
  expect((await check("MessagingBudget", read.getInputs())).getFailuresList()).toEqual([]);

  // Destroy right after the import: nothing was the stack's, nothing is sent.
  emu.resetLog();
  await remove("MessagingBudget", target.id, read.getProperties());
  expect(emu.requests({ method: "POST" })).toEqual([]);
  expect(target.budget).toBe(50);

  // The stack sets 70; destroy gives back the 50 it found at import.
  const updated = await promised<UpdateResponse>((cb) =>
    client.update(
      new UpdateRequest()
        .setUrn(urn("MessagingBudget"))
        .setId(target.id)
        .setOlds(read.getProperties())
        .setNews(struct({ accountId: target.id, budget: 70 })),
      cb,
    ),
  );
  expect(target.budget).toBe(70);
  await remove("MessagingBudget", target.id, updated.getProperties());
  expect(target.budget).toBe(50);
});

test("DatabaseBudget: imported by the database's id, left alone by destroy", async () => {
  const db = emu.emulator.data.databases.find((d) => d.owner === user().username)!.record;
  db.budget = 30;
  const read = await importRead("DatabaseBudget", db.database_id);
  expect(plain(read.getInputs())).toEqual({ databaseId: db.database_id, budget: 30 });
  expect(plain(read.getProperties())).toMatchObject({ budget: 30, previousBudget: 30, budgetSet: 30 });
  await remove("DatabaseBudget", db.database_id, read.getProperties());
  expect(db.budget).toBe(30);
});

test("MessagingAccount: imported by the account's id; the production pack found stays", async () => {
  const target = account("us-east-1").record;
  target.prod_pack_enabled = true;
  const read = await importRead("MessagingAccount", target.id);
  expect(plain(read.getInputs())).toEqual({ accountId: target.id });
  const outs = plain(read.getProperties());
  expect(outs).toMatchObject({
    accountId: target.id,
    prodPack: true,
    foundProdPack: true,
    token: secret(target.token),
  });
  expect(outs).not.toHaveProperty("prodPackSet");
  await remove("MessagingAccount", target.id, read.getProperties());
  expect(target.prod_pack_enabled).toBe(true);
});

test("FlowControlKey: imported as <region>/<key>; an operator's pause and pin stay through destroy", async () => {
  const keys = account("eu-central-1").keys;
  keys["orders"] = { waitListSize: 3, paused: true, rateResets: 0, pinned: { parallelism: 4 } };
  const read = await importRead("FlowControlKey", "eu-central-1/orders");
  expect(read.getId()).toBe("eu-central-1/orders");
  expect(plain(read.getInputs())).toEqual({ region: "eu-central-1", key: "orders" });
  const outs = plain(read.getProperties());
  expect(outs).toMatchObject({ key: "orders", region: "eu-central-1", paused: true, pin: { parallelism: 4 } });
  for (const mine of ["pausedByStack", "resumedByStack", "pinnedByStack", "token"])
    expect(outs).not.toHaveProperty(mine);
  await remove("FlowControlKey", "eu-central-1/orders", read.getProperties());
  expect(keys["orders"]).toMatchObject({ paused: true, pinned: { parallelism: 4 } });
});

test("MessagingQueue: imported as <region>/<queue>, not declared: never deleted", async () => {
  const queues = account("eu-central-1").queues;
  queues["jobs"] = { paused: false, resumes: 0, parallelism: 2 };
  const read = await importRead("MessagingQueue", "eu-central-1/jobs");
  expect(plain(read.getInputs())).toEqual({ region: "eu-central-1", queue: "jobs" });
  const outs = plain(read.getProperties());
  expect(outs).toMatchObject({ queue: "jobs", region: "eu-central-1" });
  expect(outs).not.toHaveProperty("created");
  await remove("MessagingQueue", "eu-central-1/jobs", read.getProperties());
  expect(queues["jobs"]).toMatchObject({ parallelism: 2, paused: false });
});

test("an id that names nothing answers no id (the engine's 'does not exist'); a malformed key id fails in one line", async () => {
  for (const [type, id] of [
    ["SearchIndex", "0f0f0f0f-0000-0000-0000-000000000000"],
    ["MessagingBudget", "no-such-account"],
    ["DatabaseBudget", "no-such-database"],
    ["MessagingAccount", "no-such-account"],
    ["FlowControlKey", "eu-central-1/never-seen"],
    ["MessagingQueue", "eu-central-1/never-made"],
  ]) {
    const read = await importRead(type, id);
    expect([type, read.getId(), read.getProperties()]).toEqual([type, "", undefined]);
  }
  await expect(importRead("FlowControlKey", "orders")).rejects.toThrow(
    /^\d+ [A-Z_]+: import id "orders" of a flow control key: give <region>\/<name> with region one of eu-central-1, us-east-1 [^\n]*$/,
  );
  await expect(importRead("MessagingQueue", "mars-1/jobs")).rejects.toThrow(
    /import id "mars-1\/jobs" of a messaging queue/,
  );
});
