/**
 * The inputs flow control keys and queues share (their schemas, and the TypeScript args they are
 * declared with), and what a trigger input means.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { messagingRegion, type MessagingRegion } from "../api/schemas";

/** Who a key's or queue's outputs say acts on it (tokenAccount.ts): its account, and the token last used. */
export const identityOutputs = {
  managedBy: z.string().optional().meta({
    description:
      "The account that manages it (account:<id>@<region>), or with no management credentials the fingerprint of the token it was managed with.",
  }),
  tokenFingerprint: z.string().optional().meta({
    description:
      "Fingerprint of the token last acted with (a rotation elsewhere shows as a change of it, not of managedBy).",
  }),
};

export const trigger = z.union([z.string(), z.number()], { error: "must be a string or a number" }).optional();
export const region = messagingRegion.meta({
  description: "The account's region, `eu-central-1` or `us-east-1`: actions go to its regional address.",
});
export const token = z
  .string({ error: "must be a string" })
  .min(1, "must not be empty")
  .optional()
  .meta({ description: "The account's messaging token (default: `mgmt:messagingToken`); always kept secret." });
export const flag = z.boolean({ error: "must be true or false" });

/** Where an action goes: the regional address of `region`, with `token` or mgmt:messagingToken. */
export interface ActionTargetArgs {
  region: pulumi.Input<MessagingRegion>;
  token?: pulumi.Input<string>;
}

/** A trigger value this resource has not acted on yet. */
export const isNewTrigger = (value: string | number | undefined, last: string | number | undefined) =>
  value !== undefined && value !== last;

export function secretOrUndefined(value: pulumi.Input<string> | undefined): pulumi.Input<string> | undefined {
  // Required here, on the program side only: the plugin (provider/plugin/) loads this module for
  // its input schemas and must not load the whole SDK.
  const { secret } = require("@pulumi/pulumi/output") as typeof import("@pulumi/pulumi/output");
  return value === undefined ? undefined : secret(value);
}
