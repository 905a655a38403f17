/**
 * Every function the package serves, each declared once here: the one list the plugin's Invoke
 * (plugin/invokes.ts) and the schema derive from. Each one's arguments are a zod schema made of
 * the same field schemas the TypeScript function validates with (args.ts), its result the
 * record schema the API client parses the service's answer with (camelCased where the function
 * camelCases), and it is served by the very function the TypeScript package exports. A result
 * that is a list is served as `{ items: [...] }`: Pulumi's functions return objects. A record's
 * tokens are secret fields.
 */
import { z } from "zod";
import {
  DatabaseRecord,
  FlowControlInfo,
  GlobalParallelism,
  MessagingAccountRecord,
  MessagingAccountStats,
  QueueRecord,
  SearchIndexRecord,
  SearchIndexStats,
  SearchStats,
  camelKey,
} from "../api/schemas";
import { UrlGroupRecord } from "../api/urlGroupSchemas";
import { ScheduleRecord } from "../api/scheduleSchemas";
import * as fn from ".";
import * as fnArgs from "./args";
import type { Same } from "../sameShape";

export interface FunctionDeclaration {
  /** The function's name: the token is `mgmt:index:<name>`. */
  name: string;
  description: string;
  args: z.ZodObject;
  result: z.ZodType;
  /** True when the result is a list, served as `{ items }`. */
  list?: boolean;
  /** The TypeScript package's own function, called with the arguments `args` parses. */
  run(args: Record<string, unknown>): Promise<unknown>;
}

/** An arguments schema and the function it parses them for, typed together: tsc holds each to the other. */
function served<A extends z.ZodObject>(
  args: A,
  run: (parsed: z.output<A>) => Promise<unknown>,
): Pick<FunctionDeclaration, "args" | "run"> {
  return { args, run: (raw) => run(args.parse(raw)) };
}

/** A wire record's schema with the camelCase keys the functions return (api/schemas.ts `camelize`: shallow). */
function camelized(record: z.ZodObject): z.ZodObject {
  return z.object(Object.fromEntries(Object.entries(record.shape).map(([key, field]) => [camelKey(key), field])));
}

/** The fields of a record that carry a credential: secret in the schema, so secret in an invoke's answer. */
const CREDENTIALS = ["token", "readOnlyToken"];
function credentialsSecret(record: z.ZodObject): z.ZodObject {
  return z.object(
    Object.fromEntries(
      Object.entries(record.shape).map(([key, field]) => [
        key,
        CREDENTIALS.includes(key) ? field.meta({ ...field.meta(), secret: true }) : field,
      ]),
    ),
  );
}
/**
 * An index's or an account's record without its tokens, and its tokens alone (getSearchIndexTokens,
 * getMessagingAccountTokens): Pulumi's YAML host makes a whole invoke result secret when any field
 * of it is, so a program that reads an index's name or an account's id would get them as secrets
 * too. The tokens come where they are asked for.
 */
const TOKENS = { token: true, readOnlyToken: true } as const;
const SearchIndexResult = camelized(SearchIndexRecord).omit(TOKENS);
const SearchIndexTokens = credentialsSecret(camelized(SearchIndexRecord).pick(TOKENS));
const MessagingAccountResult = camelized(MessagingAccountRecord).omit(TOKENS);
const MessagingAccountTokens = credentialsSecret(camelized(MessagingAccountRecord).pick(TOKENS));
type WithTokens = { token?: unknown; readOnlyToken?: unknown };
const withoutTokens = <T extends WithTokens>({ token: _t, readOnlyToken: _r, ...rest }: T) => rest;
const tokensOf = <T extends WithTokens>({ token, readOnlyToken }: T) => ({ token, readOnlyToken });

const GetSearchIndexArgs = fnArgs.searchIndexArgs;
const GetMessagingAccountArgs = fnArgs.messagingAccountArgs;
const GetFlowControlArgs = fnArgs.flowControlArgs;
const GetFlowControlKeysArgs = fnArgs.flowControlKeysArgs;
const GetQueuesArgs = fnArgs.queuesArgs;
const GetQueueArgs = fnArgs.queueArgs;
const GetUrlGroupsArgs = fnArgs.urlGroupsArgs;
const GetUrlGroupArgs = fnArgs.urlGroupArgs;
const GetSchedulesArgs = fnArgs.schedulesArgs;
const GetScheduleArgs = fnArgs.scheduleArgs;
const GetGlobalParallelismArgs = fnArgs.globalParallelismArgs;
const GetSigningKeysArgs = fnArgs.signingKeysArgs;
/** Both keys secret, so the whole answer is (a YAML program gets them as secrets). */
const SigningKeysResult = z.object({
  current: z.string().meta({ description: "The key receivers verify message signatures with now.", secret: true }),
  next: z.string().meta({ description: "The key the next rotation makes current.", secret: true }),
});
const StatsArgs = fnArgs.statsArgs;
const noArgs = fnArgs.noArgs;

export const FUNCTIONS: readonly FunctionDeclaration[] = [
  {
    name: "getSearchIndex",
    description:
      "One index by id, every field of its record but its tokens (getSearchIndexTokens), none of them secret.",
    ...served(GetSearchIndexArgs, async (args) => withoutTokens(await fn.getSearchIndex(args))),
    result: SearchIndexResult,
  },
  {
    name: "getSearchIndexTokens",
    description: "One index's tokens by its id: the result is secret.",
    ...served(GetSearchIndexArgs, async (args) => tokensOf(await fn.getSearchIndex(args))),
    result: SearchIndexTokens,
  },
  {
    name: "getSearchIndexes",
    description: "Every index of the user, without their tokens (getSearchIndexTokens).",
    ...served(noArgs, async () => (await fn.getSearchIndexes()).map(withoutTokens)),
    result: SearchIndexResult,
    list: true,
  },
  {
    name: "getSearchIndexStats",
    description: "One index's statistics over a period.",
    ...served(StatsArgs, fn.getSearchIndexStats),
    result: SearchIndexStats,
  },
  {
    name: "getSearchStats",
    description: "The user's search statistics.",
    ...served(noArgs, () => fn.getSearchStats()),
    result: camelized(SearchStats),
  },
  {
    name: "getMessagingAccounts",
    description: "Every messaging account of the user, without their tokens (getMessagingAccountTokens).",
    ...served(noArgs, async () => (await fn.getMessagingAccounts()).map(withoutTokens)),
    result: MessagingAccountResult,
    list: true,
  },
  {
    name: "getMessagingAccount",
    description:
      "One messaging account by id; or, without one, the first active account in a region (of a type): every field of its record but its tokens (getMessagingAccountTokens), none of them secret.",
    ...served(GetMessagingAccountArgs, async (args) => withoutTokens(await fn.getMessagingAccount(args))),
    result: MessagingAccountResult,
  },
  {
    name: "getMessagingAccountTokens",
    description:
      "The tokens of the account getMessagingAccount finds with the same arguments: the result is secret. Keys and queues act with its token.",
    ...served(GetMessagingAccountArgs, async (args) => tokensOf(await fn.getMessagingAccount(args))),
    result: MessagingAccountTokens,
  },
  {
    name: "getMessagingAccountStats",
    description: "One messaging account's statistics over a period.",
    ...served(StatsArgs, fn.getMessagingAccountStats),
    result: MessagingAccountStats,
  },
  {
    name: "getMessagingIpv4Addresses",
    description: "The addresses the messaging service sends from.",
    ...served(noArgs, () => fn.getMessagingIpv4Addresses()),
    result: z.object({ addresses: z.array(z.string()) }),
  },
  {
    name: "getFlowControl",
    description: "One flow control key's state.",
    ...served(GetFlowControlArgs, fn.getFlowControl),
    result: FlowControlInfo,
  },
  {
    name: "getFlowControlKeys",
    description: "Every flow control key of the account.",
    ...served(GetFlowControlKeysArgs, fn.getFlowControlKeys),
    result: FlowControlInfo,
    list: true,
  },
  {
    name: "getGlobalParallelism",
    description: "The account's global parallelism.",
    ...served(GetGlobalParallelismArgs, fn.getGlobalParallelism),
    result: GlobalParallelism,
  },
  {
    name: "getQueues",
    description: "Every queue of the account in a region, with its lag.",
    ...served(GetQueuesArgs, fn.getQueues),
    result: QueueRecord,
    list: true,
  },
  { name: "getQueue", description: "One queue by name.", ...served(GetQueueArgs, fn.getQueue), result: QueueRecord },
  {
    name: "getSigningKeys",
    description: "The account's signing keys (`current` and `next`) in a region: the result is secret.",
    ...served(GetSigningKeysArgs, fn.getSigningKeys),
    result: SigningKeysResult,
  },
  {
    name: "getUrlGroups",
    description: "Every URL group of the account in a region, with its endpoints.",
    ...served(GetUrlGroupsArgs, fn.getUrlGroups),
    result: UrlGroupRecord,
    list: true,
  },
  {
    name: "getUrlGroup",
    description: "One URL group by name, with its endpoints.",
    ...served(GetUrlGroupArgs, fn.getUrlGroup),
    result: UrlGroupRecord,
  },
  {
    name: "getSchedules",
    description: "Every schedule of the account in a region, whoever made it.",
    ...served(GetSchedulesArgs, fn.getSchedules),
    result: ScheduleRecord,
    list: true,
  },
  {
    name: "getSchedule",
    description: "One schedule by its id.",
    ...served(GetScheduleArgs, fn.getSchedule),
    result: ScheduleRecord,
  },
  {
    name: "getDatabases",
    description: "Every database of the user.",
    ...served(noArgs, () => fn.getDatabases()),
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
  Same<z.input<typeof GetUrlGroupsArgs>, fn.GetUrlGroupsArgs>,
  Same<z.input<typeof GetUrlGroupArgs>, fn.GetUrlGroupArgs>,
  Same<z.input<typeof GetSchedulesArgs>, fn.GetSchedulesArgs>,
  Same<z.input<typeof GetScheduleArgs>, fn.GetScheduleArgs>,
  Same<z.input<typeof GetGlobalParallelismArgs>, fn.GetGlobalParallelismArgs>,
  Same<z.input<typeof GetSigningKeysArgs>, fn.GetSigningKeysArgs>,
  Same<z.input<typeof StatsArgs>, fn.GetSearchIndexStatsArgs>,
  Same<z.input<typeof StatsArgs>, fn.GetMessagingAccountStatsArgs>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true];
