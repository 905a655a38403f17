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
export {
  MessagingControls,
  FlowControlKey,
  QueueResume,
  getFlowControl,
  getFlowControlOutput,
  type MessagingControlsArgs,
  type FlowControlKeySpec,
  type QueueSpec,
  type KeyState,
} from "./resources/messagingControls";
