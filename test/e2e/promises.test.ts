/**
 * The promises, shown once for each front door (issue 37 item 8): the same scenarios through the
 * dynamic resources and through the `mgmt` plugin (test/support/resourceDoors.ts), by the real
 * engine against the emulator. One of each kind: an ambiguous create (the fault matrix's), the
 * identity guard, provenance (an adopted index released, a budget someone else raised left
 * alone), rotation in place, hostile input refused at preview. The full suites per promise
 * (objectSafety, provenance, rotation, faultMatrix, hostileInput) run through the dynamic
 * resources; these prove the plugin keeps the same behaviour, since it calls the same code.
 *
 * A scenario whose steps all succeed runs once, with both doors' resources in one stack (each door
 * its own names and accounts, each check naming its door). One that fails while the program runs
 * goes once per door: the engine registers no resource after the first error, so a second door's
 * error may never be shown; and the ambiguous create has one fault for one request.
 */
import {
  byDoor,
  byDoorAsync,
  doorsEnv,
  DOOR_PLAN,
  dynamicDoor,
  pluginDoor,
  type ResourceDoor,
} from "../support/resourceDoors";
import { declaring, exported, failure, messagingAccount, testEnv, type TestEnv } from "../support/harness";
import { mgmtConfigMap } from "../../provider/automation";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());
beforeEach(() => env.emu.emulator.reset());

let plugin: ResourceDoor | undefined;
const DOORS: [string, () => ResourceDoor][] = [
  ["dynamic resources", () => dynamicDoor],
  // One plugin home for the file.
  ["plugin", () => (plugin ??= pluginDoor())],
];

const indexes = () => env.client.searchIndexes.list();
const writeCalls = () =>
  env.emu
    .requests()
    .filter((r) => r.method !== "GET")
    .map((r) => r.route);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("through both doors at once", () => {
  let doors: ResourceDoor[];
  beforeAll(() => {
    doors = DOORS.map(([, makeDoor]) => makeDoor());
  });
  const stack = (program: () => void) =>
    env.stack({ program: async () => declaring(program), envVars: doorsEnv(doors) });

  test("an adopted index is released on destroy with the name and plan it had; a budget raised by someone else is left", async () => {
    const per = await Promise.all(
      doors.map(async (door) => ({
        door,
        legacy: await env.client.searchIndexes.create({
          name: `legacy-${door.name}`,
          region: "eu-west-1",
          type: "free",
        }),
        account: messagingAccount(env, DOOR_PLAN[door.name]).account,
      })),
    );
    for (const { account } of per) account.record.budget = 0;
    const s = await stack(() => {
      for (const { door, legacy, account } of per) {
        door.declare("SearchIndex", "search", {
          adopt: legacy.id,
          name: `catalog-${door.name}`,
          region: "eu-west-1",
          type: "payg",
        });
        door.declare("MessagingBudget", "budget", { accountId: account.record.id, budget: 100 });
      }
    });
    await s.up();
    expect(await byDoorAsync(per, ({ legacy }) => env.client.searchIndexes.get(legacy.id))).toMatchObject(
      byDoor(per, ({ door }) => ({ name: `catalog-${door.name}`, type: "payg" })),
    );
    expect(byDoor(per, ({ account }) => account.record.budget)).toEqual(byDoor(doors, () => 100));
    for (const { account } of per) await env.client.messagingAccounts.setBudget(account.record.id, 5000); // finance raises it
    env.emu.resetLog();
    await s.destroy();
    expect(await byDoorAsync(per, ({ legacy }) => env.client.searchIndexes.get(legacy.id))).toMatchObject(
      byDoor(per, ({ door }) => ({ name: `legacy-${door.name}`, type: "free" })),
    );
    expect(byDoor(per, ({ account }) => account.record.budget)).toEqual(byDoor(doors, () => 5000));
    expect(writeCalls()).not.toContain("DELETE /v2/search/:id");
  });

  test("a new tokenRotation value rotates the index's tokens in place: same id, an update, the old token revoked", async () => {
    let rotation = "first";
    const s = await stack(() => {
      for (const door of doors)
        door.declare("SearchIndex", "idx", {
          name: `rotated-${door.name}`,
          region: "eu-west-1",
          type: "free",
          tokenRotation: rotation,
        });
    });
    await s.up();
    const before = await indexes();
    rotation = "second";
    const up = await s.up();
    expect(up.summary.resourceChanges).toEqual({ same: 1, update: doors.length });
    const after = await indexes();
    const named = (list: typeof before, door: ResourceDoor) => list.find((i) => i.name === `rotated-${door.name}`)!;
    expect(
      byDoor(doors, (door) => ({
        sameId: named(after, door).id === named(before, door).id,
        newToken: named(after, door).token !== named(before, door).token,
      })),
    ).toEqual(byDoor(doors, () => ({ sameId: true, newToken: true })));
    await s.destroy();
  });
});

describe.each(DOORS)("through the %s", (_label, makeDoor) => {
  let door: ResourceDoor;
  beforeAll(() => {
    door = makeDoor();
  });
  const stack = (program: () => void) => env.stack({ program: async () => declaring(program), envVars: door.envVars });

  test("a create answered 'commit then 503' ends with the index in state exactly once, sent once; the retried lookup says on the engine's progress what it waits for", async () => {
    const s = await stack(() =>
      door.declare("SearchIndex", "idx", { name: "committed", region: "eu-west-1", type: "free" }),
    );
    env.emu.addFault({ method: "POST", path: "^/v2/search$", commitThenStatus: 503 });
    env.emu.addFault({ method: "GET", path: "^/v2/search$", status: 503 }); // the lookup that follows, once
    const up = await s.up();
    expect(up.summary.resourceChanges).toEqual({ create: 2 });
    // On the resource's line through the plugin (it knows the URN); on the stack's through the dynamic host.
    expect(up.stdout).toMatch(
      new RegExp(
        `${door.name === "plugin" ? "SearchIndex idx" : "pulumi:pulumi:Stack \\S+"} creating \\(\\d+s\\) GET /v2/search: answered 503; trying again in \\d+\\.\\d s \\(retry 1 of 5\\)`,
      ),
    );
    const live = await indexes();
    expect(live.map((i) => i.name)).toEqual(["committed"]);
    expect((await exported(s, door.type("SearchIndex"))).map((r) => r.id)).toEqual([live[0].id]);
    expect(env.emu.requests({ route: "POST /v2/search" })).toHaveLength(1);
    await s.destroy();
    expect(await indexes()).toEqual([]);
  });

  test("refresh under another user's credentials fails naming both identities and drops nothing", async () => {
    const s = await stack(() =>
      door.declare("SearchIndex", "idx", { name: "kept", region: "eu-west-1", type: "free" }),
    );
    await s.up();
    const [index] = await indexes();
    const [alice, bob] = env.emu.users;
    await s.stack.setAllConfig(mgmtConfigMap({ username: bob.username, password: bob.password }));
    await expect(s.refresh({ runProgram: true })).rejects.toThrow(
      new RegExp(
        `not found by ${escape(`bob@${env.emu.baseUrl}`)}, but it is managed by ${escape(`alice@${env.emu.baseUrl}`)}`,
      ),
    );
    expect((await exported(s, door.type("SearchIndex"))).map((r) => r.id)).toEqual([index.id]);
    expect((await indexes()).map((i) => i.id)).toEqual([index.id]);
    // Back to alice: a destroy that runs the program takes the program's provider settings.
    await s.stack.setAllConfig(mgmtConfigMap({ username: alice.username, password: alice.password }));
    await s.destroy({ runProgram: true });
    expect(await indexes()).toEqual([]);
  });

  test("a plan the service does not have is refused at preview in one line naming the field, nothing written", async () => {
    const s = await stack(() => door.declare("SearchIndex", "idx", { name: "bad", region: "eu-west-1", type: "gold" }));
    env.emu.resetLog();
    const message = await failure(s.stack.preview());
    expect(message).toMatch(/type: .*"free".*"payg"/);
    expect(writeCalls()).toEqual([]);
  });
});
