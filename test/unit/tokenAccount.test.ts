/**
 * The identity of a key or queue is its account where the accounts list tells it (issue 41): the
 * rules of tokenAccount.ts, with the list answered by a stub (the engine tests run them for real).
 */
import { MgmtClient } from "../../provider/api/client";
import { UnauthorizedError } from "../../provider/api/errors";
import { resolveSettings } from "../../provider/config";
import { IdentityMismatchError, tokenIdentity } from "../../provider/resources/identity";
import { actingWith, assertSameAccount, revokedTokenError } from "../../provider/resources/tokenAccount";

const X = { id: "acc-x", region: "eu-central-1" };
const Y = { id: "acc-y", region: "eu-central-1" };
let users = 0;

/** A client whose accounts list answers `tokens` (account id to its current token); each its own user, so no list is shared. */
function clientWith(tokens: Record<string, string>, extra: Record<string, string> = {}) {
  const config: Record<string, string> = {
    "mgmt:baseUrl": "https://api.example.com",
    "mgmt:username": `user-${++users}`,
    "mgmt:password": "pw",
    ...extra,
  };
  const client = new MgmtClient(resolveSettings((key) => config[key], {}));
  const list = jest
    .spyOn(client.messagingAccounts, "list")
    .mockImplementation(async () => [X, Y].map((a) => ({ ...a, token: tokens[a.id] })));
  return { client, list };
}
const noCredentials = () => new MgmtClient(resolveSettings((key) => ({ "mgmt:messagingToken": "t-x1" })[key], {}));
const recordedAs = (account: { id: string; region: string }, token: string) => ({
  managedBy: `account:${account.id}@${account.region}`,
  tokenFingerprint: tokenIdentity(token),
});

test("a token of the recorded account goes on; a token of another of the user's accounts is refused, naming both accounts", async () => {
  const { client } = clientWith({ "acc-x": "t-x1", "acc-y": "t-y1" });
  expect(await actingWith(client, "key k", recordedAs(X, "t-x1"), "t-x1")).toEqual({
    token: "t-x1",
    ...recordedAs(X, "t-x1"),
  });
  await expect(actingWith(client, "key k", recordedAs(X, "t-x1"), "t-y1")).rejects.toThrow(IdentityMismatchError);
  await expect(actingWith(client, "key k", recordedAs(X, "t-x1"), "t-y1")).rejects.toThrow(
    /key k is managed by account:acc-x@eu-central-1, but this run would act with account:acc-y@eu-central-1: nothing was sent/,
  );
});

test("a recorded token that a rotation revoked gives way to the account's current token", async () => {
  const { client } = clientWith({ "acc-x": "t-x2", "acc-y": "t-y1" });
  expect(await actingWith(client, "key k", recordedAs(X, "t-x1"), "t-x1")).toEqual({
    token: "t-x2",
    ...recordedAs(X, "t-x2"),
  });
  // The account's new token, given in the program, is the same account's.
  expect(await actingWith(client, "key k", recordedAs(X, "t-x1"), "t-x2")).toEqual({
    token: "t-x2",
    ...recordedAs(X, "t-x2"),
  });
});

test("state from before (a token-hash identity) is recorded as the account in place when the token is the same; another token is refused as before", async () => {
  const { client } = clientWith({ "acc-x": "t-x1", "acc-y": "t-y1" });
  const legacy = { managedBy: tokenIdentity("t-x1") };
  expect(await actingWith(client, "key k", legacy, "t-x1")).toEqual({ token: "t-x1", ...recordedAs(X, "t-x1") });
  await expect(actingWith(client, "key k", legacy, "t-y1")).rejects.toThrow(
    /is managed by token:[0-9a-f]{12}, but this run would act with token:[0-9a-f]{12}/,
  );
});

test("a preview reads nothing while the token is the one recorded; a changed token is looked up", async () => {
  const { client, list } = clientWith({ "acc-x": "t-x1", "acc-y": "t-y1" });
  await assertSameAccount(client, "key k", recordedAs(X, "t-x1"), "t-x1");
  expect(list).not.toHaveBeenCalled();
  await expect(assertSameAccount(client, "key k", recordedAs(X, "t-x1"), "t-y1")).rejects.toThrow(
    IdentityMismatchError,
  );
  expect(list).toHaveBeenCalled();
});

test("without management credentials the fingerprint guard stays, and a 401 of the recorded token is one line with the way on", async () => {
  const client = noCredentials();
  const recorded = { managedBy: tokenIdentity("t-x1") };
  const acting = await actingWith(client, "key k", recorded, undefined);
  expect(acting).toEqual({
    token: undefined,
    managedBy: tokenIdentity("t-x1"),
    tokenFingerprint: tokenIdentity("t-x1"),
  });
  await expect(actingWith(client, "key k", recorded, "t-x2")).rejects.toThrow(IdentityMismatchError);

  const refused = new UnauthorizedError("GET", "/v2/flowControl/k", "regional", 401, "unauthorized");
  const told = revokedTokenError(refused, 'flow control key "k"', "eu-central-1", acting, recorded, client.settings);
  expect(told).toBeInstanceOf(UnauthorizedError);
  const message = (told as Error).message;
  expect(message).not.toContain("\n");
  expect(message).not.toMatch(/another account|t-x1/);
  expect(message).toMatch(
    /^flow control key "k" in eu-central-1: the token this stack recorded for it was refused \(401\): it was revoked/,
  );
  expect(message).toContain(`pulumi config set mgmt:movedFrom '${tokenIdentity("t-x1")}'`);
  expect(message).toMatch(/mgmt:username and mgmt:password/);
  // A token not recorded (a new one, refused) keeps the client's own message.
  expect(
    revokedTokenError(
      refused,
      'flow control key "k"',
      "eu-central-1",
      { ...acting, tokenFingerprint: tokenIdentity("t-new") },
      recorded,
      client.settings,
    ),
  ).toBe(refused);
});
