/**
 * pulumi-mgmt: search indexes, messaging budgets, flow control keys, queues and signing keys as code.
 */
export { SearchIndex, type SearchIndexArgs, type SearchIndexTokens } from "./resources/searchIndex/searchIndex";
export { MessagingBudget, type MessagingBudgetArgs } from "./resources/messagingBudget/messagingBudget";
export { MessagingAccount, type MessagingAccountArgs } from "./resources/messagingAccount/messagingAccount";
export { DatabaseBudget, type DatabaseBudgetArgs } from "./resources/databaseBudget/databaseBudget";
export {
  MessagingControls,
  type MessagingControlsArgs,
  type KeyState,
  type QueueState,
} from "./resources/messagingControls";
export { FlowControlKey, type FlowControlKeySpec, type PinSpec } from "./resources/flowControlKey/flowControlKey";
export { MessagingQueue, type QueueSpec } from "./resources/messagingQueue/messagingQueue";
export { MessagingSigningKeys, type SigningKeysSpec } from "./resources/messagingSigningKeys/messagingSigningKeys";
export { UrlGroup, type UrlGroupSpec, type UrlGroupEndpointArgs } from "./resources/urlGroup/urlGroup";
export { MessagingSchedule, type ScheduleSpec } from "./resources/messagingSchedule/messagingSchedule";
export * from "./functions";
/** The record of one index, as getSearchIndex returns it. */
export type { GetSearchIndexResult as SearchIndexInfo } from "./functions/getSearchIndex";
export type { FlowControlInfo, QueueRecord, GlobalParallelism } from "./api/schemas";
export { MgmtClient } from "./api/client";
export {
  AmbiguousError,
  ApiError,
  ifFound,
  isNotFound,
  NotFoundError,
  RateLimitedError,
  RefusedError,
  UnauthorizedError,
} from "./api/errors";
export { IdentityMismatchError } from "./resources/identity";
export { InternalError, MgmtError, UserError } from "./userError";
export { ConfigError, resolveSettings, type Settings } from "./config";
export * as schemas from "./api/schemas";
