/**
 * The engine's import (`pulumi import`, the `import` resource option) reads an object by its id
 * alone: each provider's `read` gets no recorded state and answers, besides the outputs, the
 * inputs a user would write. What an import records is what it found: nothing in it is the
 * stack's, so a later destroy gives back or leaves alone exactly as after `adopt`
 * (docs/ownership.md, "Import").
 */
import { MESSAGING_REGIONS, type MessagingRegion } from "../api/schemas";
import { UserError } from "../userError";

/** A `read` with no recorded state: an import (a refresh always passes what the stack recorded). */
export const isImport = (stored: object | undefined): boolean => !stored || Object.keys(stored).length === 0;

const isMessagingRegion = (r: string): r is MessagingRegion => (MESSAGING_REGIONS as readonly string[]).includes(r);

/**
 * A key's or queue's id, `<region>/<name>` (keyId, queueId), as an import gives it: the region's
 * address and the name within the account of mgmt:messagingToken.
 */
export function regionAndName(id: string, what: string): { region: MessagingRegion; name: string } {
  const slash = id.indexOf("/");
  const region = id.slice(0, Math.max(slash, 0));
  const name = id.slice(slash + 1);
  if (slash < 0 || !isMessagingRegion(region) || name === "")
    throw new UserError(
      `import id "${id}" of a ${what}: give <region>/<name> with region one of ${MESSAGING_REGIONS.join(", ")} (for example ${MESSAGING_REGIONS[0]}/orders); the account is mgmt:messagingToken's`,
    );
  return { region, name };
}
