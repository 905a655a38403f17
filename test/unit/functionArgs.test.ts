/**
 * The TypeScript functions check every argument with the schema the plugin's invokes use
 * (provider/functions/args.ts) before anything is sent: one line naming the function, the argument
 * and what is allowed. A missing account says what the service answered (a wrong mgmt:baseUrl
 * answers 404 for every account).
 */
import { startEmulator, type RunningEmulator } from "../../emulator";
import {
  getFlowControl,
  getFlowControlKeys,
  getMessagingAccount,
  getQueue,
  getQueues,
  getSchedule,
  getSearchIndex,
  getSearchIndexStats,
} from "../../provider";

let emu: RunningEmulator;
const saved = { ...process.env };
beforeAll(async () => {
  emu = await startEmulator();
  const user = emu.users[0];
  Object.assign(process.env, {
    MGMT_BASE_URL: emu.baseUrl,
    MGMT_MESSAGING_URL: emu.messagingUrl,
    MGMT_REGIONAL_MESSAGING_URL: emu.regionalMessagingUrl,
    MGMT_USERNAME: user.username,
    MGMT_PASSWORD: user.password,
  });
});
afterAll(async () => {
  process.env = saved;
  await emu.close();
});

const bad = (args: unknown) => args as never;

test.each<[string, () => Promise<unknown>, string]>([
  ["an empty index id", () => getSearchIndex({ id: "" }), "getSearchIndex: id: must be a non-empty string"],
  ["no index id", () => getSearchIndex(bad({})), "getSearchIndex: id: must be a non-empty string"],
  ["an empty account id", () => getMessagingAccount({ id: "" }), "getMessagingAccount: id: must be a non-empty string"],
  [
    "an account type that does not exist",
    () => getMessagingAccount({ region: "us-east-1", type: bad("pro") }),
    'getMessagingAccount: type: must be one of free, paid, got "pro"',
  ],
  [
    "a region that does not exist, beside an id",
    () => getMessagingAccount({ id: "x", region: bad("mars") }),
    'getMessagingAccount: region: must be one of eu-central-1, us-east-1, got "mars"',
  ],
  [
    "the keys of a region that does not exist",
    () => getFlowControlKeys({ token: "t", region: bad("mars") }),
    'getFlowControlKeys: region: must be one of eu-central-1, us-east-1, got "mars"',
  ],
  ["an empty key", () => getFlowControl({ key: "" }), "getFlowControl: key: flow control key must not be empty"],
  [
    "a queue with no region",
    () => getQueues(bad({ token: "t" })),
    "getQueues: region: must be one of eu-central-1, us-east-1, got undefined",
  ],
  [
    "an empty queue name",
    () => getQueue({ region: "eu-central-1", name: "" }),
    "getQueue: name: queue name must not be empty",
  ],
  [
    "a schedule id with a slash",
    () => getSchedule({ region: "eu-central-1", scheduleId: "a/b" }),
    "getSchedule: scheduleId: may contain only letters, digits, '-', '.' and '_' (1 to 128)",
  ],
  [
    "a statistics period that does not exist",
    () => getSearchIndexStats({ id: "x", period: bad("2d") }),
    'getSearchIndexStats: period: must be one of 1h, 3h, 12h, 1d, 3d, 7d, 30d, got "2d"',
  ],
])("%s is refused in one line before anything is sent", async (_label, call, message) => {
  emu.resetLog();
  await expect(call()).rejects.toThrow(message);
  await expect(call()).rejects.toMatchObject({ message: expect.not.stringContaining("\n") });
  expect(emu.requests()).toEqual([]);
});

test("a missing account says what the service answered", async () => {
  await expect(getMessagingAccount({ id: "nope" })).rejects.toThrow(
    /^getMessagingAccount: id: no messaging account "nope" for this user \(getMessagingAccounts\(\) lists them; the service answered: GET \/v2\/messaging\/user\/nope failed: 404: [^\n]+\)$/,
  );
});
