/** The functions (`getX` / `getXOutput`), one per file, each with named Args and Result types. */
export * from "./getSearchIndex";
export * from "./getSearchIndexes";
export * from "./getMessagingAccounts";
export * from "./getMessagingAccount";
export * from "./getFlowControl";
export * from "./getQueues";
export * from "./getQueue";
export * from "./getSchedules";
export * from "./getSchedule";
export * from "./getGlobalParallelism";
export * from "./getMessagingIpv4Addresses";
export * from "./getSearchIndexStats";
export * from "./getSearchStats";
export * from "./getMessagingAccountStats";
export * from "./getFlowControlKeys";
export * from "./getDatabases";
