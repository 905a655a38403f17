/**
 * Which identity manages an object, so that "not found" is only believed when the same identity
 * asks. A 404 under other credentials (another user, another address, another account's token)
 * says nothing about whether the object still exists: dropping it from state would orphan it.
 *
 * Identities are non-secret fingerprints stored in every resource's outputs (`managedBy`):
 * - management API objects (indexes, budgets): `user@origin/path` of mgmt:baseUrl;
 * - messaging objects (flow control keys, queues): their account, `account:<id>@<region>`, where
 *   management credentials let the accounts list tell it (tokenAccount.ts); else `token:` and 12
 *   hex digits of the SHA-256 of the bearer token, which cannot be turned back into the token.
 */
import { createHash } from "node:crypto";
import { requireSetting, SETTINGS_KEYS as K, type Settings } from "../config";
import { UserError } from "../userError";
import { processState } from "../processState";

export function managementIdentity(settings: Settings): string {
  const base = new URL(requireSetting(settings, "baseUrl", "reach the management API"));
  const user = requireSetting(settings, "username", "authenticate to the management API");
  return `${user}@${base.origin}${base.pathname.replace(/\/+$/, "")}`;
}

export function tokenIdentity(token: string): string {
  return `token:${createHash("sha256").update(token).digest("hex").slice(0, 12)}`;
}

export class IdentityMismatchError extends UserError {
  override readonly name = "IdentityMismatchError";
}

/**
 * Token identities this provider process rotated into new ones (MessagingAccount's
 * `tokenRotation`): a key or queue fed from the account's token acts with the new token in the
 * same `up`, and the new token is the same account's. Only rotations made in this very run count,
 * which is what makes them proof. Process state (processState.ts).
 */
interface Rotations {
  identities: Map<string, string>;
  /** Old token to new, in memory only: a delete later in the run must not send a revoked token. */
  tokens: Map<string, string>;
}
const rotations = (): Rotations =>
  processState<Rotations>("rotatedThisRun", () => ({ identities: new Map(), tokens: new Map() }));

/** This run replaced `oldToken` by `newToken` (one account's). */
export function recordRotation(oldToken: string, newToken: string): void {
  if (oldToken === newToken) return;
  rotations().identities.set(tokenIdentity(oldToken), tokenIdentity(newToken));
  rotations().tokens.set(oldToken, newToken);
}

/** The last of a chain of rotations this run made, starting at `start` (itself when none). */
function latest(map: Map<string, string>, start: string): string {
  const seen = new Set<string>([start]);
  let at = start;
  for (let next = map.get(at); next !== undefined && !seen.has(next); next = map.get(at)) {
    seen.add(next);
    at = next;
  }
  return at;
}

/** The token this run rotated `token` into, if it did; else `token` itself. */
export const latestToken = (token: string | undefined): string | undefined =>
  token === undefined ? undefined : latest(rotations().tokens, token);

/** The identity this run rotated `identity` into, if it did; else `identity` itself. */
export const latestIdentity = (identity: string | undefined): string | undefined =>
  identity === undefined ? undefined : latest(rotations().identities, identity);

function rotatedInto(recorded: string, current: string): boolean {
  return recorded !== current && latest(rotations().identities, recorded) === current;
}

/** No identity is recorded only in a resource recovery just imported (before.ts): its refresh records one. */
export const isSameOrMoved = (recorded: string | undefined, current: string, settings: Settings) =>
  recorded === undefined || recorded === current || settings.movedFrom === recorded || rotatedInto(recorded, current);

function howToMove(current: string, recorded: string): string {
  return (
    `If the credentials or address changed by mistake, set them back (${K.baseUrl.config}, ${K.username.config}, ${K.password.config}, ${K.messagingToken.config} or the resource's token). ` +
    `To move this stack to ${current} on purpose, set ${K.movedFrom.config} to "${recorded}" (pulumi config set ${K.movedFrom.config} '${recorded}'): ` +
    `objects ${current} cannot see are then released from the stack and left untouched in the service.`
  );
}

/** An object of the stack, as the not-found rule needs it. */
export interface ManagedObject {
  /** How messages name it: `search index "a" (id)`. */
  what: string;
  /** The identity recorded as managing it (`managedBy`); absent only until recovery's refresh. */
  managedBy: string | undefined;
  /** The identity asking now. */
  asking: string;
  settings: Settings;
}

/**
 * The service does not find an object of the stack (a 404, `isNotFound`, or a read that found
 * nothing, `ifFound`). Returns when that proves it gone (same identity, no identity recorded, or
 * the user moved away from the recorded identity on purpose with mgmt:movedFrom); throws
 * otherwise, so the object stays in the stack.
 */
export function believeGone({ what, managedBy, asking, settings }: ManagedObject): void {
  if (isSameOrMoved(managedBy, asking, settings)) return;
  throw new IdentityMismatchError(
    `${what} was not found by ${asking}, but it is managed by ${managedBy}: it is kept in the stack, not dropped, ` +
      `because a "not found" under other credentials does not mean it is gone. ${howToMove(asking, managedBy!)}`,
  );
}

/**
 * Before acting on an object addressed by name within an account (a flow control key, a queue):
 * a token of another account reaches that account's object of the same name, not this one, so a
 * change of identity is refused like any other, unless mgmt:movedFrom says it is on purpose.
 */
export function assertSameIdentity(
  what: string,
  recorded: string | undefined,
  current: string,
  settings: Settings,
): void {
  if (isSameOrMoved(recorded, current, settings)) return;
  throw new IdentityMismatchError(
    `${what} is managed by ${recorded}, but this run would act with ${current}: nothing was sent, ` +
      `because another account's token reaches another account's object of the same name, and what this stack set on the first would be left behind. ${howToMove(current, recorded!)}`,
  );
}
