/**
 * The `mgmt` plugin's resource calls for DatabaseBudget, MessagingBudget, MessagingAccount,
 * FlowControlKey and MessagingQueue, over real gRPC against an in-process emulator, as
 * pluginResources.test.ts does for SearchIndex: Check refusing bad input in one line naming the
 * field, a previewed Create sending nothing, Create, Diff, Update, Read, Read after an out-of-band
 * delete (an empty id), Delete giving back what the dynamic resource gives back, and no token or
 * password in plain text in any response. No Pulumi engine runs.
 */
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { DiffResponse, PropertyDiff } from "@pulumi/pulumi/proto/provider_pb";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { SECRET_SIG, SIG_KEY, type Plain } from "../../provider/plugin/properties";
import { ENGINE_UNKNOWN, PluginRun, initFailed, rejection, secret, struct } from "../support/pluginCalls";
import { stopPlugins } from "../support/pluginProcess";

let emu: RunningEmulator;
let run: PluginRun;
const SECRET = { [SIG_KEY]: SECRET_SIG };

beforeEach(async () => {
  emu = await startEmulator();
  run = await new PluginRun(emu).nextRun();
});
afterEach(async () => {
  run?.close();
  await emu?.close();
});
afterAll(stopPlugins);

const alice = () => emu.users[0];
const accountOf = (region: string, type: string) =>
  alice().accounts.find((a) => a.region === region && a.type === type)!;
const storedAccount = (id: string) => emu.emulator.data.accounts.find((a) => a.record.id === id)!;
/** Requests that change something (a preview and a Check may read, never write). */
const writes = () => emu.requests().filter((r) => r.method !== "GET");

/**
 * One resource through its life over gRPC: Check (a bad plan refused in one line naming `badField`,
 * nothing written), a previewed Create (nothing written), Create, Diff with no change and with
 * `change` (in place, in detail), Update, Read. Answers what a test goes on with.
 */
async function lifecycle(
  type: string,
  plan: { inputs: Record<string, Plain>; bad: Record<string, Plain>; badField: string; change: Record<string, Plain> },
) {
  emu.resetLog();
  const bad = await run.check(type, "it", { ...plan.inputs, ...plan.bad });
  expect(bad.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
    [plan.badField, expect.stringMatching(new RegExp(`^${plan.badField}: [^\\n]+$`))],
  ]);
  const checked = await run.check(type, "it", plan.inputs);
  expect(checked.getFailuresList().map((f) => f.getReason())).toEqual([]);
  const inputs = run.plain(checked.getInputs());

  const preview = await run.create(type, "it", checked.getInputs(), true);
  expect(preview.getId()).toBe("");
  run.plain(preview.getProperties());
  expect(writes()).toEqual([]);

  const created = await run.create(type, "it", checked.getInputs());
  expect(created.getId()).not.toBe("");
  const id = created.getId();
  run.plain(created.getProperties());

  const none = await run.diff(type, "it", id, created.getProperties(), inputs, checked.getInputs());
  expect(none.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_NONE);
  expect(none.getDiffsList()).toEqual([]);
  const changedInputs = { ...inputs, ...plan.change };
  const changed = await run.diff(type, "it", id, created.getProperties(), changedInputs, checked.getInputs());
  expect(changed.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_SOME);
  expect(changed.getReplacesList()).toEqual([]);
  expect(changed.getDiffsList()).toEqual(Object.keys(plan.change));
  for (const key of Object.keys(plan.change))
    expect(changed.getDetaileddiffMap().get(key)?.getKind()).toBe(PropertyDiff.Kind.UPDATE);

  const updated = await run.update(type, "it", id, created.getProperties(), changedInputs);
  const updatedOuts = run.plain(updated.getProperties());
  const read = await run.read(type, "it", id, updated.getProperties());
  expect(read.getId()).toBe(id);
  const readOuts = run.plain(read.getProperties());
  run.plain(read.getInputs());
  return { id, inputs, created, updated: updated.getProperties(), updatedOuts, read: readOuts };
}

/** The next run reads a resource whose object went away out of band: an empty id. */
async function readsAsGone(type: string, id: string, props: Struct | undefined) {
  await run.nextRun();
  expect((await run.read(type, "it", id, props)).getId()).toBe("");
}

function expectNoSecretInPlainText(...secrets: (string | undefined)[]) {
  const text = run.plainText();
  for (const s of [alice().password, ...secrets]) if (s) expect(text).not.toContain(s);
}

describe.each([
  {
    type: "DatabaseBudget",
    idField: "databaseId",
    badBudget: -5,
    object: () => emu.emulator.data.databases.find((d) => d.owner === alice().username)!.record.database_id,
    budgetOf: (id: string) => emu.emulator.data.databases.find((d) => d.record.database_id === id)?.record.budget,
    remove: (id: string) =>
      (emu.emulator.data.databases = emu.emulator.data.databases.filter((d) => d.record.database_id !== id)),
  },
  {
    type: "MessagingBudget",
    idField: "accountId",
    badBudget: 5,
    object: () => accountOf("us-east-1", "paid").id,
    budgetOf: (id: string) => storedAccount(id)?.record.budget,
    remove: (id: string) => (emu.emulator.data.accounts = emu.emulator.data.accounts.filter((a) => a.record.id !== id)),
  },
])("$type", ({ type, idField, badBudget, object, budgetOf, remove }) => {
  test("Check, a previewed Create, Create, Diff, Update, Read; Delete gives back the budget from before; gone reads as gone", async () => {
    const id = object();
    const found = budgetOf(id);
    const life = await lifecycle(type, {
      inputs: { [idField]: id, budget: 50 },
      bad: { budget: badBudget },
      badField: "budget",
      change: { budget: 80 },
    });
    expect(life.id).toBe(id);
    expect(life.inputs).toMatchObject({ before: { budget: found } }); // what check found: what destroy gives back
    expect(life.updatedOuts).toMatchObject({ budget: 80, previousBudget: found, budgetSet: 80 });
    expect(life.read).toMatchObject({ [idField]: id, budget: 80, previousBudget: found });
    expect(budgetOf(id)).toBe(80);

    // A later run destroys: the budget from before comes back.
    await run.nextRun();
    await run.delete(type, "it", id, life.updated);
    expect(budgetOf(id)).toBe(found);

    remove(id);
    await readsAsGone(type, id, life.updated);
    expectNoSecretInPlainText(...alice().accounts.map((a) => a.token));
  });
});

test("MessagingAccount: Check, a previewed Create, Create, Diff, Update, Read; Delete gives back the production pack it found; gone reads as gone", async () => {
  const account = accountOf("eu-central-1", "paid");
  const stored = () => storedAccount(account.id)?.record;
  const life = await lifecycle("MessagingAccount", {
    inputs: { accountId: account.id, prodPack: true },
    bad: { plan: "free" },
    badField: "plan",
    change: { prodPack: false },
  });
  expect(stored()?.prod_pack_enabled).toBe(false);
  expect(life.read).toMatchObject({
    accountId: account.id,
    prodPack: false,
    token: { ...SECRET, value: account.token },
  });

  // A previewed rotation writes nothing and claims no output it cannot know: the token is unknown
  // (a key fed from it shows the change in the preview), the inputs are as declared.
  emu.resetLog();
  const rotated = await run.update(
    "MessagingAccount",
    "it",
    life.id,
    life.updated,
    { ...life.inputs, tokenRotation: "next" },
    true,
  );
  expect(writes()).toEqual([]);
  expect(run.plain(rotated.getProperties())).toMatchObject({
    accountId: account.id,
    tokenRotation: "next",
    token: { ...SECRET, value: ENGINE_UNKNOWN },
  });

  // Set again, then a later run destroys: the pack goes back to what was found (off).
  const again = await run.update("MessagingAccount", "it", life.id, life.updated, { ...life.inputs, prodPack: true });
  expect(stored()?.prod_pack_enabled).toBe(true);
  await run.nextRun();
  await run.delete("MessagingAccount", "it", life.id, again.getProperties());
  expect(stored()?.prod_pack_enabled).toBe(false);

  emu.emulator.data.accounts = emu.emulator.data.accounts.filter((a) => a.record.id !== account.id);
  await readsAsGone("MessagingAccount", life.id, again.getProperties());
  expectNoSecretInPlainText(account.token, storedAccount(accountOf("us-east-1", "paid").id).record.read_only_token);
});

test("a previewed Check with values not known yet fails nothing and sends none of them: an account id, a pin's rate", async () => {
  emu.resetLog();
  const account = await run.check("MessagingAccount", "it", { accountId: ENGINE_UNKNOWN, prodPack: true });
  expect(account.getFailuresList().map((f) => f.getReason())).toEqual([]);
  expect(emu.requests()).toEqual([]);

  // Known key and token: the key may be read; the unknown rate is checked when it is known.
  const { region, token } = accountOf("eu-central-1", "free");
  const key = await run.check("FlowControlKey", "it", {
    region,
    token: secret(token),
    key: "tenant-a",
    pin: { rate: ENGINE_UNKNOWN, period: 60 },
  });
  expect(key.getFailuresList().map((f) => f.getReason())).toEqual([]);
  expect(writes()).toEqual([]);
  expect(
    emu
      .requests()
      .map((r) => r.path)
      .join(" "),
  ).not.toContain(ENGINE_UNKNOWN);

  // A known part of the same object is still checked at preview, naming its field.
  const bad = await run.check("FlowControlKey", "it", {
    region,
    token: secret(token),
    key: "tenant-a",
    pin: { rate: ENGINE_UNKNOWN, period: -1 },
  });
  expect(bad.getFailuresList().map((f) => f.getReason())).toEqual(["pin.period: must be at least 1"]);
  // So is a part the field may not have, whatever the unknown turns out to be.
  const extra = await run.check("FlowControlKey", "it", {
    region,
    token: secret(token),
    key: "tenant-a",
    pin: { rate: ENGINE_UNKNOWN, burst: 5 },
  });
  expect(extra.getFailuresList().map((f) => f.getReason())).toEqual([
    "pin: may only have parallelism, rate and period",
  ]);
});

test("FlowControlKey: Check, a previewed Create, Create, Diff, Update, Read; Delete gives back the key as found; gone reads as gone", async () => {
  const { region, token, id: accountId } = accountOf("eu-central-1", "free");
  storedAccount(accountId).keys["tenant-a"] = { waitListSize: 4, paused: false, rateResets: 0 };
  const key = () => storedAccount(accountId).keys["tenant-a"];
  const life = await lifecycle("FlowControlKey", {
    inputs: { region, token: secret(token), key: "tenant-a", paused: true },
    bad: { region: "mars-1" },
    badField: "region",
    change: { pin: { parallelism: 3 } },
  });
  expect(key()).toMatchObject({ paused: true, pinned: { parallelism: 3 } });
  expect(life.read).toMatchObject({ key: "tenant-a", paused: true, waitListSize: 4, token: SECRET });

  // A pin not known until apply (an output) may pin the key: the preview shows a change, though
  // this stack had pinned nothing yet.
  const unknownPin = await run.diff("FlowControlKey", "it", life.id, life.created.getProperties(), {
    ...life.inputs,
    pin: ENGINE_UNKNOWN,
  });
  expect(unknownPin.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_SOME);
  expect(unknownPin.getDiffsList()).toEqual(["pin"]);

  await run.nextRun();
  await run.delete("FlowControlKey", "it", life.id, life.updated);
  expect(key().paused).toBe(false);
  expect(key().pinned ?? {}).toEqual({});

  delete storedAccount(accountId).keys["tenant-a"];
  await readsAsGone("FlowControlKey", life.id, life.updated);
  expectNoSecretInPlainText(token);
});

test("MessagingQueue: Check, a previewed Create, Create, Diff, Update, Read; Delete deletes the queue it created; gone reads as gone", async () => {
  const { region, token, id: accountId } = accountOf("us-east-1", "free");
  const queues = () => storedAccount(accountId).queues;
  const life = await lifecycle("MessagingQueue", {
    inputs: { region, token: secret(token), queue: "jobs", parallelism: 2 },
    bad: { parallelism: 0 },
    badField: "parallelism",
    change: { parallelism: 3 },
  });
  expect(life.id).toBe(`${region}/jobs`);
  expect(queues().jobs).toMatchObject({ parallelism: 3 });
  expect(life.read).toMatchObject({ queue: "jobs", parallelism: 3, created: true, token: SECRET });

  await run.nextRun();
  await run.delete("MessagingQueue", "it", life.id, life.updated);
  expect(queues().jobs).toBeUndefined();

  // A queue created as well, then deleted out of band, reads as gone.
  const spare = await run.create("MessagingQueue", "it", struct(life.inputs));
  run.plain(spare.getProperties());
  delete queues().jobs;
  await readsAsGone("MessagingQueue", spare.getId(), spare.getProperties());
  expectNoSecretInPlainText(token);
});

test("MessagingAccount: a create that set the plan and then failed to set the production pack answers created-but-failed-to-initialise, with the plan it set and the pack as found", async () => {
  const account = accountOf("us-east-1", "free");
  emu.addFault({ method: "POST", path: "/enable-prodpack/", status: 400 });
  const inputs = { accountId: account.id, plan: "paid", prodPack: true };
  const detail = initFailed(await rejection(run.create("MessagingAccount", "partly", struct(inputs))));
  expect(detail.getId()).toBe(account.id);
  const outs = run.plain(detail.getProperties());
  // The pack was not set: the one found stays what destroy gives back, and the next up sets it.
  expect(outs).toMatchObject({
    accountId: account.id,
    plan: "paid",
    prodPack: false,
    foundProdPack: false,
    token: SECRET,
  });
  expect(outs.prodPackSet).toBeUndefined();
  expect(detail.getReasonsList()).toEqual([
    expect.stringMatching(
      /^messaging account "[^"]+": [^\n]*400: injected fault \(what was done is kept in the stack; [^\n]*\)$/,
    ),
  ]);
  expect(storedAccount(account.id).record).toMatchObject({ type: "paid", prod_pack_enabled: false });

  // The next up updates it: the pack set now is the stack's, given back on destroy.
  const updated = await run.update("MessagingAccount", "partly", account.id, detail.getProperties(), inputs);
  expect(run.plain(updated.getProperties())).toMatchObject({ prodPack: true, prodPackSet: true, foundProdPack: false });
  await run.nextRun();
  await run.delete("MessagingAccount", "partly", account.id, updated.getProperties());
  expect(storedAccount(account.id).record.prod_pack_enabled).toBe(false);
  expectNoSecretInPlainText(account.token);
});

test("FlowControlKey: a create that paused the key and then failed to pin it answers created-but-failed-to-initialise: the pause is the stack's, the pin not yet", async () => {
  const { region, token, id: accountId } = accountOf("eu-central-1", "free");
  storedAccount(accountId).keys["tenant-p"] = { waitListSize: 1, paused: false, rateResets: 0 };
  const key = () => storedAccount(accountId).keys["tenant-p"];
  emu.addFault({ method: "POST", path: "/flowControl/[^/]+/pin$", status: 400 });
  const inputs = { region, token: secret(token), key: "tenant-p", paused: true, pin: { parallelism: 2 } };
  const detail = initFailed(await rejection(run.create("FlowControlKey", "partly", struct(inputs))));
  expect(detail.getId()).toBe(`${region}/tenant-p`);
  const outs = run.plain(detail.getProperties());
  expect(outs).toMatchObject({ key: "tenant-p", paused: true, pausedByStack: true, token: SECRET });
  expect(outs.pin).toBeUndefined();
  expect(outs.pinnedByStack).toBeUndefined();
  expect(key()).toMatchObject({ paused: true });

  // The next up pins; a later destroy lifts the pause this stack set and unpins.
  const updated = await run.update("FlowControlKey", "partly", detail.getId(), detail.getProperties(), inputs);
  expect(key()).toMatchObject({ paused: true, pinned: { parallelism: 2 } });
  await run.nextRun();
  await run.delete("FlowControlKey", "partly", detail.getId(), updated.getProperties());
  expect(key().paused).toBe(false);
  expect(key().pinned).toBeUndefined();
  expectNoSecretInPlainText(token);
});
