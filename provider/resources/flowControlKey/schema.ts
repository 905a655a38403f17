/**
 * What the FlowControlKey provider receives (after `check`) and what the stack stores; the
 * schemas MessagingControls checks plain values with.
 */
import { z } from "zod";
import type { Same } from "../../sameShape";
import { flowControlKey } from "../../api/schemas";
import { flag, identityOutputs, region, token, trigger } from "../messagingFields";
import { withoutUndefined } from "../../withoutUndefined";
import { type PauseProvenance } from "../pauseProvenance";

const limit = (unit: string) =>
  z.number({ error: "must be a number" }).int(`must be a whole number of ${unit}`).min(1, "must be at least 1");

/** Pinned limits. A rate without a period is per second (period 1), the service's default. */
export const PinSpec = z
  .strictObject(
    {
      parallelism: limit("messages").optional(),
      rate: limit("messages").optional(),
      period: limit("seconds").optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? "may only have parallelism, rate and period"
          : "must be an object with parallelism, rate and/or period",
    },
  )
  .superRefine((pin, ctx) => {
    if (pin.parallelism === undefined && pin.rate === undefined)
      ctx.addIssue({
        code: "custom",
        message: "give parallelism, rate (per period seconds) or both; leave pin out to pin nothing",
      });
    if (pin.period !== undefined && pin.rate === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["period"],
        message: "needs rate: period is the length in seconds of the window rate counts in",
      });
  })
  .transform((pin) => withoutUndefined({ ...pin, period: pin.rate === undefined ? undefined : (pin.period ?? 1) }));
export type PinSpec = z.input<typeof PinSpec>;
export type Pin = z.output<typeof PinSpec>;

const recordedPin = z.object({
  parallelism: z.number().optional(),
  rate: z.number().optional(),
  period: z.number().optional(),
});

/** The key as `check` found it before this stack acted (before.ts). */
export const KeyBefore = z.object({
  waitListSize: z.number(),
  paused: z.boolean().optional(),
  pin: recordedPin.optional(),
  absent: z.literal(true).optional(),
});
export type KeyBefore = z.output<typeof KeyBefore>;

/** A key's own inputs (beside region and token), as FlowControlKey and MessagingControls take them. */
export const flowControlKeyFields = {
  key: flowControlKey.meta({
    description: "The flow control key, as messages carry it (keys exist once messages have used them).",
  }),
  paused: flag.meta({
    description:
      "true pauses delivery of the key's messages; false lifts a pause. Left out, the pause is not this stack's: one an operator set stays.",
  }),
  resetRateTrigger: trigger.meta({
    description: "Change the value to reset the key's rate once (for example a date or an incident id).",
  }),
  pin: PinSpec.meta({
    description:
      "Limits to pin, winning over those carried by messages: `parallelism` (messages at once) and `rate` messages per `period` seconds (default 1). Removing a part unpins it.",
  }),
};

export const KeyInputs = z.object({
  region,
  token,
  ...flowControlKeyFields,
  paused: flowControlKeyFields.paused.optional(),
  pin: flowControlKeyFields.pin.optional(),
  before: KeyBefore.optional(),
});
export type KeyInputs = z.output<typeof KeyInputs>;

/** Which parts a pin covers: `rate` covers rate and period. */
export type PinPart = "parallelism" | "rate";

/** What this stack changed of the key, and what it found there: destroy gives back only this. */
export interface KeyProvenance extends PauseProvenance {
  /** The values the stack pinned, by part. */
  pinnedByStack?: Partial<Pin>;
  /** The pin as found before the stack first pinned a part: what a removed part goes back to. */
  foundPin?: Partial<Pin>;
}

export interface KeyOutputs extends Omit<KeyInputs, "before">, KeyProvenance {
  /** Only in a resource recovery imported (before.ts), until its refresh. */
  before?: KeyBefore;
  waitListSize: number;
  /** The account this resource acts on, or the fingerprint of its token where the account cannot be told (tokenAccount.ts). */
  managedBy?: string;
  /** Fingerprint of the token it last acted with: the same one later is the same account, with no call (tokenAccount.ts). */
  tokenFingerprint?: string;
  /** The last `resetRateTrigger` value acted on. */
  lastResetTrigger?: string | number;
}

/** The resource's id: where the key is. Recovery (automation/recovery.ts) gives an imported one the same. */
export const keyId = (i: { region: string; key: string }) => `${i.region}/${i.key}`;

const pinOutput = z.object({
  parallelism: z.number().optional(),
  rate: z.number().optional(),
  period: z.number().optional(),
});
/** A checked pin (Pin) always has `period`, undefined when it pins no rate. */
const checkedPin = pinOutput.extend({ period: z.union([z.number(), z.undefined()]) });

/**
 * KeyOutputs as a schema, for the plugin schema (provider/plugin/schema.ts checks they agree).
 * `secret` marks what the resource keeps secret (its additionalSecretOutputs).
 */
export const KeyOutputsSchema = z.object({
  region: region.meta({ description: "The region of the messaging account." }),
  token: z
    .string()
    .optional()
    .meta({ description: "The messaging token the key is managed with (default: mgmt:messagingToken).", secret: true }),
  key: z.string().meta({ description: "The flow control key." }),
  paused: z.boolean().optional(),
  resetRateTrigger: z.union([z.string(), z.number()]).optional(),
  pin: checkedPin.optional().meta({ description: "The pinned limits." }),
  before: KeyBefore.optional(),
  waitListSize: z.number().meta({ description: "Messages waiting on the key, as last read." }),
  ...identityOutputs,
  lastResetTrigger: z.union([z.string(), z.number()]).optional(),
  pausedByStack: z.boolean().optional(),
  resumedByStack: z.boolean().optional(),
  pinnedByStack: pinOutput.optional(),
  foundPin: pinOutput.optional(),
});

/** The stored-output interface and its schema agree, key for key and type for type: tsc fails here when one drifts. */
export const OUTPUTS_AGREE: Same<z.infer<typeof KeyOutputsSchema>, KeyOutputs> = true;
