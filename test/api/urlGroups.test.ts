/**
 * The emulator's URL group routes (the API's topics) as the vendor's own messaging SDK drives
 * them, and as this package's client does: the same paths, bodies and answers.
 */
import { Client } from "@upstash/qstash";
import { NotFoundError } from "../../provider/api/errors";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { clientFor } from "../support/harness";

let emu: RunningEmulator;
let qstash: Client;
let token: string;

const REGION = "eu-central-1";

beforeAll(async () => {
  emu = await startEmulator();
  const account = emu.users[0].accounts.find((a) => a.region === REGION && a.type === "free")!;
  token = account.token;
  qstash = new Client({ baseUrl: emu.regionalMessagingUrl.replace("{region}", REGION), token, retry: false });
});
afterAll(() => emu.close());
beforeEach(() => {
  emu.emulator.reset();
  // The vendor's SDK logs every failed request; the tests read the failures themselves.
  jest.spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

const accountData = () => emu.emulator.data.accounts.find((a) => a.record.token === token)!;

test("the vendor's SDK adds, reads, lists, removes and deletes URL groups", async () => {
  await qstash.urlGroups.addEndpoints({
    name: "billing",
    endpoints: [{ url: "https://a.example.com/hook", name: "a" }, { url: "https://b.example.com/hook" }],
  });
  const group = await qstash.urlGroups.get("billing");
  expect(group.name).toBe("billing");
  expect(group.endpoints.map((e) => e.url)).toEqual(["https://a.example.com/hook", "https://b.example.com/hook"]);
  expect(group.endpoints[0].name).toBe("a");

  await qstash.urlGroups.addEndpoints({ name: "audit", endpoints: [{ url: "https://c.example.com" }] });
  expect((await qstash.urlGroups.list()).map((g) => g.name).sort()).toEqual(["audit", "billing"]);

  // Either the URL or the name identifies the endpoint to remove.
  await qstash.urlGroups.removeEndpoints({ name: "billing", endpoints: [{ name: "a" }] });
  expect((await qstash.urlGroups.get("billing")).endpoints.map((e) => e.url)).toEqual(["https://b.example.com/hook"]);
  // Removing the last endpoint removes the group (contract).
  await qstash.urlGroups.removeEndpoints({ name: "billing", endpoints: [{ url: "https://b.example.com/hook" }] });
  await expect(qstash.urlGroups.get("billing")).rejects.toThrow(/not found/);

  await qstash.urlGroups.delete("audit");
  expect(await qstash.urlGroups.list()).toEqual([]);
});

test("adding a URL already in the group sets its name and adds nothing (a resend after a commit is harmless)", async () => {
  const client = clientFor({ ...settings(), messagingToken: token });
  const groups = client.urlGroups({ region: REGION });
  await groups.addEndpoints("g", [{ url: "https://a.example.com" }]);
  await groups.addEndpoints("g", [{ url: "https://a.example.com", name: "first" }]);
  expect((await groups.get("g")).endpoints).toEqual([{ url: "https://a.example.com", name: "first" }]);
  // Removing an endpoint that is not there changes nothing.
  await groups.removeEndpoints("g", ["https://gone.example.com"]);
  expect((await groups.get("g")).endpoints).toHaveLength(1);
  await expect(groups.get("absent")).rejects.toBeInstanceOf(NotFoundError);
});

test("over max_topics or max_endpoints_per_topic answers 412; a group a schedule publishes to is not deleted", async () => {
  const account = accountData();
  account.record.max_topics = 1;
  account.record.max_endpoints_per_topic = 2;
  await qstash.urlGroups.addEndpoints({ name: "one", endpoints: [{ url: "https://a.example.com" }] });
  await expect(
    qstash.urlGroups.addEndpoints({ name: "two", endpoints: [{ url: "https://a.example.com" }] }),
  ).rejects.toThrow(/at most 1 URL groups/);
  await expect(
    qstash.urlGroups.addEndpoints({
      name: "one",
      endpoints: [{ url: "https://b.example.com" }, { url: "https://c.example.com" }],
    }),
  ).rejects.toThrow(/at most 2 endpoints/);
  expect(account.topics.one.endpoints).toHaveLength(1);

  account.schedules["nightly"] = { destination: "one", paused: false };
  await expect(qstash.urlGroups.delete("one")).rejects.toThrow(/schedule nightly/);
  expect(account.topics.one).toBeDefined();
});

test("bad names and URLs answer 400", async () => {
  await expect(
    qstash.urlGroups.addEndpoints({ name: "ok", endpoints: [{ url: "ftp://a.example.com" }] }),
  ).rejects.toThrow(/http:\/\/ or https:\/\//);
  await expect(qstash.urlGroups.get("bad name!")).rejects.toThrow(/may contain only/);
});

function settings() {
  return {
    baseUrl: emu.baseUrl,
    messagingUrl: emu.messagingUrl,
    regionalMessagingUrl: emu.regionalMessagingUrl,
    username: emu.users[0].username,
    password: emu.users[0].password,
  };
}
