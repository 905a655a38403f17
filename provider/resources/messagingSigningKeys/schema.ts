/**
 * What the MessagingSigningKeys provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import type { Same } from "../../sameShape";
import { identityOutputs, region, token } from "../messagingFields";

export const rotation = z
  .string({ error: "must be a string (a date or a ticket number, for example)" })
  .min(1, "must not be empty (leave rotation out to rotate nothing)");

export const Inputs = z.object({
  region,
  token,
  rotation: rotation.optional().meta({
    description:
      "Any value (a date, a ticket number). A value the keys have not seen yet rotates them once: the old `next` becomes `current` and a fresh `next` is made, so receivers that hold both keep verifying. `current` and `next` change in the same `up`, and everything fed from them receives the new pair. Creating with a value does not rotate; removing it does nothing.",
  }),
});
export type Inputs = z.output<typeof Inputs>;

export interface SigningKeysOutputs extends Omit<Inputs, "rotation"> {
  /** The last `rotation` value acted on (or recorded at create, which does not rotate). */
  rotation?: string;
  /** Secret: the key receivers verify signatures with now. */
  current: string;
  /**
   * Secret: the key the next rotation makes current; receivers hold it beside `current`. A rotation
   * whose answer was lost is told by it: keys read later whose `current` is this one were rotated.
   */
  next: string;
  /**
   * Secret: `next` as it was when `rotation` was last acted on (or at create). Keys whose `current`
   * is this one have rotated since: the next new `rotation` value takes that rotation as its own.
   */
  nextWhenActed?: string;
  /** The account the keys are read with, or the fingerprint of its token where the account cannot be told (tokenAccount.ts). */
  managedBy?: string;
  /** Fingerprint of the token it last acted with (tokenAccount.ts). */
  tokenFingerprint?: string;
}

/** The resource's id: the keys of mgmt:messagingToken's account (or the resource's token) in a region. */
export const signingKeysId = (i: { region: string }) => i.region;

/**
 * SigningKeysOutputs as a schema, for the plugin schema (provider/plugin/schema.ts checks they
 * agree). `secret` marks what the resource keeps secret (its additionalSecretOutputs).
 */
export const SigningKeysOutputsSchema = z.object({
  region: region.meta({ description: "The region of the messaging account." }),
  token: z.string().optional().meta({
    description: "The messaging token the keys are read with (default: mgmt:messagingToken).",
    secret: true,
  }),
  rotation: z.string().optional().meta({
    description: "The last `rotation` value acted on (or recorded at create, which does not rotate).",
  }),
  current: z.string().meta({
    description: "The key receivers verify message signatures with now (secret).",
    secret: true,
  }),
  next: z.string().meta({
    description: "The key the next rotation makes current: receivers hold it beside `current` (secret).",
    secret: true,
  }),
  nextWhenActed: z.string().optional().meta({
    description:
      "`next` as it was when `rotation` was last acted on: keys whose `current` is this one have rotated since, and the next new `rotation` value takes that rotation as its own (secret).",
    secret: true,
  }),
  ...identityOutputs,
});

/** The stored-output interface and its schema agree, key for key and type for type: tsc fails here when one drifts. */
export const OUTPUTS_AGREE: Same<z.infer<typeof SigningKeysOutputsSchema>, SigningKeysOutputs> = true;
