/**
 * The functions (`provider/functions/getX`) as the plugin's invokes: each one's arguments as a
 * zod schema made of the same field schemas the function validates with, and its result as the
 * record schema the API client parses the service's answer with (camelCased where the function
 * camelCases). A result that is a list is served as `{ items: [...] }`: Pulumi's functions return
 * objects.
 */
import { z } from "zod";
import {
  DatabaseRecord,
  FlowControlInfo,
  GlobalParallelism,
  MESSAGING_TYPES,
  MessagingAccountRecord,
  MessagingAccountStats,
  QueueRecord,
  STATS_PERIODS,
  SearchIndexRecord,
  SearchIndexStats,
  SearchStats,
  camelKey,
  flowControlKey,
  messagingRegion,
  queueName,
} from "../api/schemas";
import type * as fn from "../functions";
import type { Same } from "./sameShape";

export interface PluginFunction {
  /** The function's name: the token is `mgmt:index:<name>`. */
  name: string;
  description: string;
  args: z.ZodObject;
  result: z.ZodType;
  /** True when the result is a list, served as `{ items }`. */
  list?: boolean;
}

/** A wire record's schema with the camelCase keys the functions return (api/schemas.ts `camelize`: shallow). */
function camelized(record: z.ZodObject): z.ZodObject {
  return z.object(Object.fromEntries(Object.entries(record.shape).map(([key, field]) => [camelKey(key), field])));
}

const id = z.string().min(1).meta({ description: "The object's id." });
const token = z
  .string()
  .optional()
  .meta({ description: "The messaging token (default: mgmt:messagingToken).", secret: true });
const period = z.enum(STATS_PERIODS).optional().meta({ description: "The statistics' period." });
const noArgs = z.object({});

const GetSearchIndexArgs = z.object({ id: id.meta({ description: "The index id." }) });
const GetMessagingAccountArgs = z.object({
  id: z.string().optional().meta({ description: "The account's id: read with one call." }),
  region: messagingRegion.optional(),
  type: z
    .enum(MESSAGING_TYPES)
    .optional()
    .meta({ description: "With `region`: the first active account of this type; default: the first active one." }),
});
const GetFlowControlArgs = z.object({ key: flowControlKey, token });
const GetFlowControlKeysArgs = z.object({ token, region: messagingRegion.optional() });
const GetQueuesArgs = z.object({ region: messagingRegion, token });
const GetQueueArgs = z.object({ region: messagingRegion, name: queueName, token });
const GetGlobalParallelismArgs = z.object({ token });
const StatsArgs = z.object({ id, period });

export const PLUGIN_FUNCTIONS: readonly PluginFunction[] = [
  {
    name: "getSearchIndex",
    description: "One index by id, every field of its record (tokens included: the result is secret).",
    args: GetSearchIndexArgs,
    result: camelized(SearchIndexRecord),
  },
  {
    name: "getSearchIndexes",
    description: "Every index of the user.",
    args: noArgs,
    result: camelized(SearchIndexRecord),
    list: true,
  },
  {
    name: "getSearchIndexStats",
    description: "One index's statistics over a period.",
    args: StatsArgs,
    result: SearchIndexStats,
  },
  {
    name: "getSearchStats",
    description: "The user's search statistics.",
    args: noArgs,
    result: camelized(SearchStats),
  },
  {
    name: "getMessagingAccounts",
    description: "Every messaging account of the user.",
    args: noArgs,
    result: camelized(MessagingAccountRecord),
    list: true,
  },
  {
    name: "getMessagingAccount",
    description: "One messaging account by id; or, without one, the first active account in a region (of a type).",
    args: GetMessagingAccountArgs,
    result: camelized(MessagingAccountRecord),
  },
  {
    name: "getMessagingAccountStats",
    description: "One messaging account's statistics over a period.",
    args: StatsArgs,
    result: MessagingAccountStats,
  },
  {
    name: "getMessagingIpv4Addresses",
    description: "The addresses the messaging service sends from.",
    args: noArgs,
    result: z.object({ addresses: z.array(z.string()) }),
  },
  {
    name: "getFlowControl",
    description: "One flow control key's state.",
    args: GetFlowControlArgs,
    result: FlowControlInfo,
  },
  {
    name: "getFlowControlKeys",
    description: "Every flow control key of the account.",
    args: GetFlowControlKeysArgs,
    result: FlowControlInfo,
    list: true,
  },
  {
    name: "getGlobalParallelism",
    description: "The account's global parallelism.",
    args: GetGlobalParallelismArgs,
    result: GlobalParallelism,
  },
  {
    name: "getQueues",
    description: "Every queue of the account in a region, with its lag.",
    args: GetQueuesArgs,
    result: QueueRecord,
    list: true,
  },
  { name: "getQueue", description: "One queue by name.", args: GetQueueArgs, result: QueueRecord },
  {
    name: "getDatabases",
    description: "Every database of the user.",
    args: noArgs,
    result: camelized(DatabaseRecord),
    list: true,
  },
];

/** The functions' own argument types and the schemas above must agree: tsc fails on the one that drifted. */
export const ARGS_AGREE: [
  Same<z.input<typeof GetSearchIndexArgs>, fn.GetSearchIndexArgs>,
  Same<z.input<typeof GetMessagingAccountArgs>, fn.GetMessagingAccountArgs>,
  Same<z.input<typeof GetFlowControlArgs>, fn.GetFlowControlArgs>,
  Same<z.input<typeof GetFlowControlKeysArgs>, fn.GetFlowControlKeysArgs>,
  Same<z.input<typeof GetQueuesArgs>, fn.GetQueuesArgs>,
  Same<z.input<typeof GetQueueArgs>, fn.GetQueueArgs>,
  Same<z.input<typeof GetGlobalParallelismArgs>, fn.GetGlobalParallelismArgs>,
  Same<z.input<typeof StatsArgs>, fn.GetSearchIndexStatsArgs>,
  Same<z.input<typeof StatsArgs>, fn.GetMessagingAccountStatsArgs>,
] = [true, true, true, true, true, true, true, true, true];
