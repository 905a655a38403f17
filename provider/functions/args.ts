/**
 * The functions' arguments as zod schemas: what each TypeScript function checks before it sends
 * anything, and what the plugin's invokes check and describe in the package schema
 * (functions/all.ts). One line per problem, naming the argument and what is allowed. The
 * descriptions are what every SDK and the TypeScript doc comments show (scripts/argDocs.ts).
 */
import { z } from "zod";
import { scheduleId } from "../api/scheduleSchemas";
import { MESSAGING_REGIONS, MESSAGING_TYPES, STATS_PERIODS, flowControlKey, oneOf, queueName } from "../api/schemas";
import { urlGroupName } from "../api/urlGroupSchemas";

const id = z
  .string({ error: "must be a non-empty string" })
  .min(1, "must be a non-empty string")
  .meta({ description: "The object's id." });
const token = z
  .string({ error: "must be a string" })
  .optional()
  .meta({ description: "The messaging token (default: `mgmt:messagingToken`).", secret: true });
const region = oneOf(MESSAGING_REGIONS).meta({ title: "MessagingRegion", description: "The account's region." });
const period = oneOf(STATS_PERIODS)
  .meta({ title: "StatsPeriod" })
  .optional()
  .meta({ description: "The statistics' period: one of 1h, 3h, 12h, 1d, 3d, 7d, 30d; default 1h." });

export const noArgs = z.object({});
export const searchIndexArgs = z.object({ id: id.meta({ description: "The index id." }) });
export const messagingAccountArgs = z.object({
  id: id.optional().meta({ description: "The account's id: read with one call (`GET /v2/messaging/user/:id`)." }),
  region: region.optional().meta({ description: "Without `id`: the first active account in this region." }),
  type: oneOf(MESSAGING_TYPES)
    .meta({ title: "MessagingAccountType" })
    .optional()
    .meta({ description: "With `region`: the first active account of this type; default: the first active one." }),
});
export const flowControlArgs = z.object({ key: flowControlKey.meta({ description: "The flow control key." }), token });
export const flowControlKeysArgs = z.object({
  token: token.meta({
    ...token.meta(),
    description:
      "The account's token; default: `mgmt:messagingToken`, or with `region` the first active account there.",
  }),
  region: region
    .optional()
    .meta({ description: "Without `token`: read the keys of the user's first active account in this region." }),
});
export const queuesArgs = z.object({ region, token });
export const queueArgs = z.object({ region, name: queueName.meta({ description: "The queue's name." }), token });
export const signingKeysArgs = z.object({ region, token });
export const urlGroupsArgs = z.object({ region, token });
export const urlGroupArgs = z.object({
  region,
  name: urlGroupName.meta({ description: "The URL group's name." }),
  token,
});
export const schedulesArgs = z.object({ region, token });
export const scheduleArgs = z.object({
  region,
  scheduleId: scheduleId.meta({ description: "The schedule's id." }),
  token,
});
export const globalParallelismArgs = z.object({ token });
export const statsArgs = z.object({ id, period });
