/**
 * The functions' arguments as zod schemas: what each TypeScript function checks before it sends
 * anything, and what the plugin's invokes check and describe in the package schema
 * (plugin/functions.ts). One line per problem, naming the argument and what is allowed.
 */
import { z } from "zod";
import { MESSAGING_REGIONS, MESSAGING_TYPES, STATS_PERIODS, flowControlKey, oneOf, queueName } from "../api/schemas";

const id = z
  .string({ error: "must be a non-empty string" })
  .min(1, "must be a non-empty string")
  .meta({ description: "The object's id." });
const token = z
  .string({ error: "must be a string" })
  .optional()
  .meta({ description: "The messaging token (default: mgmt:messagingToken).", secret: true });
const region = oneOf(MESSAGING_REGIONS);
const period = oneOf(STATS_PERIODS).optional().meta({ description: "The statistics' period." });

export const noArgs = z.object({});
export const searchIndexArgs = z.object({ id: id.meta({ description: "The index id." }) });
export const messagingAccountArgs = z.object({
  id: id.optional().meta({ description: "The account's id: read with one call." }),
  region: region.optional(),
  type: oneOf(MESSAGING_TYPES)
    .optional()
    .meta({ description: "With `region`: the first active account of this type; default: the first active one." }),
});
export const flowControlArgs = z.object({ key: flowControlKey, token });
export const flowControlKeysArgs = z.object({ token, region: region.optional() });
export const queuesArgs = z.object({ region, token });
export const queueArgs = z.object({ region, name: queueName, token });
export const globalParallelismArgs = z.object({ token });
export const statsArgs = z.object({ id, period });
