/**
 * Which messaging account a token belongs to: the identity of a flow control key or a queue.
 *
 * Keys and queues are addressed by name within an account, so the account is what a stack must
 * not lose track of, not the token's bytes: a rotation (the console, another stack, an `up`
 * killed after the service committed it) replaces the token and keeps the account. The
 * management API's accounts list carries each account's current token (management-api.md 2.2,
 * endpoint 4), so with management credentials a token is looked up there and the identity
 * recorded is `account:<id>@<region>`; beside it, `tokenFingerprint` (identity.ts tokenIdentity)
 * tells without a call whether a later run holds the same token.
 *
 * Without management credentials the token is all there is to tell an account by: the identity
 * stays its fingerprint, and a token of another fingerprint is refused (identity.ts).
 */
import type { MgmtClient } from "../api/client";
import { UnauthorizedError } from "../api/errors";
import type { MessagingAccountRecord } from "../api/schemas";
import { requireSetting, SETTINGS_KEYS as K, type Settings } from "../config";
import { processState } from "../processState";
import { assertSameIdentity, isSameOrMoved, tokenIdentity } from "./identity";
import { isUnknown } from "./validation";

/** What a key or queue recorded of the token it last acted with. */
export interface RecordedIdentity {
  managedBy?: string;
  tokenFingerprint?: string;
}

/** The token a call acts with (undefined: mgmt:messagingToken) and what to record of it. */
export interface Acting {
  token: string | undefined;
  managedBy: string;
  tokenFingerprint: string;
}

export const accountIdentity = (account: { id: string; region: string }) => `account:${account.id}@${account.region}`;
const isAccountIdentity = (identity: string | undefined): identity is string =>
  identity?.startsWith("account:") === true;
const accountIdOf = (identity: string) => identity.slice("account:".length, identity.lastIndexOf("@"));

/** Management credentials are configured: the accounts list can be read. */
export const canListAccounts = (s: Settings) =>
  s.baseUrl !== undefined && s.username !== undefined && s.password !== undefined;

/** The token's fingerprint as recorded: its own field, or the identity itself in state from before accounts were recorded. */
const recordedFingerprint = (r: RecordedIdentity) =>
  r.tokenFingerprint ?? (isAccountIdentity(r.managedBy) ? undefined : r.managedBy);

interface Listed {
  lists: Map<string, Promise<MessagingAccountRecord[]>>;
  /** Fingerprints not found in a list read after they were asked for: not read for again. */
  missed: Set<string>;
}
const listed = (): Listed => processState<Listed>("accountsListed", () => ({ lists: new Map(), missed: new Set() }));

/** This user's live accounts: read once per provider process, or again (`fresh`) when a token may have changed since. */
function accounts(client: MgmtClient, fresh: boolean): Promise<MessagingAccountRecord[]> {
  const key = `${client.settings.baseUrl} ${client.settings.username}`;
  const known = listed().lists.get(key);
  if (known && !fresh) return known;
  const list = client.messagingAccounts.list().then((all) => all.filter((a) => !a.deletion_time));
  listed().lists.set(key, list);
  list.catch(() => listed().lists.delete(key));
  return list;
}

/** The account whose current token `token` is, if it is one of this user's; a list read earlier is read again once before saying no. */
async function accountOfToken(client: MgmtClient, token: string): Promise<MessagingAccountRecord | undefined> {
  const find = (list: MessagingAccountRecord[]) => list.find((a) => a.token === token);
  const fingerprint = tokenIdentity(token);
  const found = find(await accounts(client, false));
  if (found || listed().missed.has(fingerprint)) return found;
  const again = find(await accounts(client, true));
  if (!again) listed().missed.add(fingerprint);
  return again;
}

/**
 * Before acting on a key or queue (refresh, update, destroy, create): the token to act with and
 * the identity to record, or an IdentityMismatchError with nothing sent.
 *
 * With management credentials: a token of the recorded account goes on; a token of another of
 * this user's accounts is refused; a token that is no account's current one (the recorded token,
 * revoked by a rotation; a stale one in config) gives way to the recorded account's current token,
 * which reaches the recorded object. A recorded fingerprint (state from before accounts were
 * recorded) of this very token is its account's: the account is recorded in place.
 */
export async function actingWith(
  client: MgmtClient,
  what: string,
  recorded: RecordedIdentity,
  declared: string | undefined,
): Promise<Acting> {
  const given = declared ?? requireSetting(client.settings, "messagingToken", "authenticate to the messaging API");
  const fingerprint = tokenIdentity(given);
  const sameToken = fingerprint === recordedFingerprint(recorded);
  if (!canListAccounts(client.settings)) return byFingerprint(client, what, recorded, declared, fingerprint);
  const account = await accountOfToken(client, given);
  if (account) {
    const identity = accountIdentity(account);
    if (isAccountIdentity(recorded.managedBy)) assertSameIdentity(what, recorded.managedBy, identity, client.settings);
    else if (!sameToken) assertSameIdentity(what, recorded.managedBy, fingerprint, client.settings);
    return { token: declared, managedBy: identity, tokenFingerprint: fingerprint };
  }
  // No current token of this user's accounts: revoked (a rotation), or unknown here. Either way
  // it reaches nothing of the recorded account, whose current token reaches the recorded object.
  if (isAccountIdentity(recorded.managedBy) && client.settings.movedFrom !== recorded.managedBy) {
    const id = accountIdOf(recorded.managedBy);
    const current = (await accounts(client, true)).find((a) => a.id === id);
    if (current)
      return { token: current.token, managedBy: recorded.managedBy, tokenFingerprint: tokenIdentity(current.token) };
  }
  return byFingerprint(client, what, recorded, declared, fingerprint);
}

/** The account cannot be told (no management credentials, or a token of no account of this user's): the fingerprint guard. */
function byFingerprint(
  client: MgmtClient,
  what: string,
  recorded: RecordedIdentity,
  declared: string | undefined,
  fingerprint: string,
): Acting {
  if (fingerprint === recordedFingerprint(recorded) && recorded.managedBy !== undefined)
    return { token: declared, managedBy: recorded.managedBy, tokenFingerprint: fingerprint };
  assertSameIdentity(what, recorded.managedBy, fingerprint, client.settings);
  return { token: declared, managedBy: fingerprint, tokenFingerprint: fingerprint };
}

/**
 * At diff (preview): refuses a token of another account with no call while the token is the one
 * recorded; a changed token is looked up as `actingWith` does. A token not known yet (a preview
 * of a rotation) is checked at `up`.
 */
export async function assertSameAccount(
  client: MgmtClient,
  what: string,
  recorded: RecordedIdentity,
  declared: string | undefined,
): Promise<void> {
  const given = declared ?? client.settings.messagingToken;
  if (given === undefined || isUnknown(given) || tokenIdentity(given) === recordedFingerprint(recorded)) return;
  if (isSameOrMoved(recorded.managedBy, tokenIdentity(given), client.settings)) return;
  await actingWith(client, what, recorded, declared);
}

/**
 * A 401 for the very token a key or queue recorded, when no current token of its account was
 * found to act with instead: it was revoked. One line with the way on, never "another account":
 * a rotation is the likely cause. Any other error is returned as it is.
 */
export function revokedTokenError(
  err: unknown,
  what: string,
  region: string,
  acting: Acting,
  recorded: RecordedIdentity,
  settings: Settings,
): unknown {
  if (
    !(err instanceof UnauthorizedError) ||
    err.tokenRegion ||
    acting.tokenFingerprint !== recordedFingerprint(recorded)
  )
    return err;
  const identity = recorded.managedBy ?? acting.managedBy;
  const automatic = canListAccounts(settings)
    ? ""
    : `; or set ${K.username.config} and ${K.password.config}, with which a stack records the account rather than the token and follows its rotations by itself`;
  return err.about(
    `${what} in ${region}`,
    `the token this stack recorded for it was refused (401): it was revoked, most likely by a rotation of the account's token. ` +
      `Give the account's new token (${K.messagingToken.config} or the resource's token), confirm it is the same account's with \`pulumi config set ${K.movedFrom.config} '${identity}'\`, ` +
      `then run \`pulumi up\` (and remove ${K.movedFrom.config} after it)${automatic}`,
  );
}

/** The identity a "not found" is judged under (identity.ts believeGone): the recorded one while the run acts with the token it recorded (the same token is the same account). */
export const judgedAs = (acting: Acting, recorded: RecordedIdentity): string =>
  acting.tokenFingerprint === recordedFingerprint(recorded) && recorded.managedBy !== undefined
    ? recorded.managedBy
    : acting.managedBy;
