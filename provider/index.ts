/**
 * pulumi-mgmt: search indexes, messaging budgets, flow control keys and queues as code.
 */
export {
  SearchIndex,
  getSearchIndex,
  getSearchIndexOutput,
  getSearchIndexes,
  getSearchIndexesOutput,
  type SearchIndexArgs,
  type SearchIndexInfo,
  type SearchIndexTokens,
} from "./resources/searchIndex";
export { MgmtClient } from "./api/client";
export { ApiError } from "./api/errors";
export { ConfigError, resolveSettings, type Settings } from "./config";
export * as schemas from "./api/schemas";
export {
  MessagingBudget,
  getMessagingAccounts,
  getMessagingAccountsOutput,
  getMessagingAccountOutput,
  type MessagingBudgetArgs,
  type MessagingAccount,
} from "./resources/messagingBudget";
export { MessagingControls, type MessagingControlsArgs, type KeyState, type QueueState } from "./resources/messagingControls";
export { FlowControlKey, type FlowControlKeySpec, type PinSpec } from "./resources/flowControlKey";
export { MessagingQueue, type QueueSpec } from "./resources/messagingQueue";
export {
  getFlowControl,
  getFlowControlOutput,
  getQueues,
  getQueuesOutput,
  getQueue,
  getQueueOutput,
  getGlobalParallelism,
  getGlobalParallelismOutput,
} from "./resources/messagingReads";
export type { FlowControlInfo, QueueRecord, GlobalParallelism } from "./api/schemas";
