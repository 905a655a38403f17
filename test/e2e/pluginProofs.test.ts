/**
 * The proofs from each language (issue 37 item 5), one scenario through every front door
 * (test/support/frontDoors.ts: YAML, Go), by the real engine against the emulator, with the plugin
 * installed by its own command and no download: up, a no-op preview that calls nothing but the
 * program's own function, a change in place, bad input refused at preview before anything is
 * written, refresh after an out-of-band delete, destroy giving back what it found, and no
 * credential plain in the state.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { failure, testEnv, type TestEnv } from "../support/harness";
import { releasedMessage } from "../../provider/resources/released";
import { PROOF_KEY, goDoor, yamlDoor, type Declared, type FrontDoor } from "../support/frontDoors";

const DOORS = {
  yaml: yamlDoor,
  go: goDoor,
} satisfies Record<string, (env: TestEnv, dir: string, token: string) => FrontDoor | Promise<FrontDoor>>;

describe.each(Object.keys(DOORS) as (keyof typeof DOORS)[])("through %s", (language) => {
  let env: TestEnv;
  let door: FrontDoor;
  let dir: string;
  let declared: Declared;
  let accountId: string;
  let before: { messaging?: number; database?: number };

  beforeAll(async () => {
    env = await testEnv();
    dir = mkdtempSync(path.join(tmpdir(), `mgmt-proof-${language}-`));
    // The account the program's function finds: alice's paid one in eu-central-1.
    const account = (await env.client.messagingAccounts.list()).find(
      (a) => a.region === "eu-central-1" && a.type === "paid",
    )!;
    accountId = account.id;
    // Keys come into being when messages are published: this one has been.
    env.emu.emulator.data.accounts.find((a) => a.record.id === accountId)!.keys[PROOF_KEY] = {
      waitListSize: 4,
      paused: false,
      rateResets: 0,
    };
    const database = (await env.client.databases.list())[0];
    before = { messaging: account.budget, database: database.budget };
    declared = {
      indexType: "payg",
      messagingBudget: 120,
      databaseBudget: 50,
      paused: true,
      databaseId: database.database_id,
    };
    door = await DOORS[language](env, dir, account.token);
    door.declare(declared);
  });
  afterAll(async () => {
    await env.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  test("up creates every resource through the plugin; a no-op preview calls nothing but the program's function", async () => {
    const up = await door.up();
    expect(up.changes).toEqual({ create: 7 });
    const indexId = String(up.outputs.indexId.value);
    expect((await env.client.searchIndexes.get(indexId)).type).toBe("payg");
    expect((await env.client.messagingAccounts.get(accountId)).budget).toBe(120);
    expect(up.outputs.tokens.secret).toBe(true);

    env.emu.resetLog();
    const preview = await door.preview();
    expect(preview.changes).toEqual({ same: 7 });
    expect(env.emu.requests().map((r) => r.route)).toEqual(["GET /v2/messaging/users"]);
  });

  test("a change in place updates only what changed", async () => {
    declared = { ...declared, messagingBudget: 200, paused: false };
    door.declare(declared);
    const up = await door.up();
    expect(up.changes).toEqual({ same: 5, update: 2 });
    expect((await env.client.messagingAccounts.get(accountId)).budget).toBe(200);
  });

  test("bad input is refused at preview in one line naming the field and the allowed values, before anything is sent", async () => {
    door.declare({ ...declared, indexType: "gold" });
    env.emu.resetLog();
    const message = await failure(door.preview());
    expect(message).toMatch(/type: .*free.*payg/);
    expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
    door.declare(declared);
  });

  test("refresh after an out-of-band delete drops the index; destroy gives back what it found; no credential in state", async () => {
    const indexId = String((await door.up()).outputs.indexId.value);
    await env.client.searchIndexes.delete(indexId);
    const refresh = await door.refresh();
    expect(refresh.changes).toMatchObject({ delete: 1 });

    const destroyed = await door.destroy();
    // The engine says "deleted" of every one; the run's output also says which were only released.
    for (const what of [`messaging account "${accountId}"`, `flow control key "${PROOF_KEY}"`])
      expect(destroyed.output).toContain(releasedMessage(what));
    expect(destroyed.output).not.toMatch(/search index "docs" \([^)]*\): released/);
    expect((await env.client.messagingAccounts.get(accountId)).budget).toBe(before.messaging);
    expect((await env.client.databases.list())[0].budget).toBe(before.database);
    const state = door.stateText();
    const alice = env.emu.users[0];
    // Which credential leaked, never the credential itself (a test's output is output too).
    const leaked = [
      ["alice's password", alice.password],
      ...alice.accounts.map((a) => [`the token of account ${a.id}`, a.token]),
    ].filter(([, secret]) => state.includes(secret));
    expect(leaked.map(([what]) => what)).toEqual([]);
  });
});
