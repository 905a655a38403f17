import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { MessagingAccountStats, StatsPeriod } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { statsArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetMessagingAccountStatsArgs {
  id: string;
  period?: StatsPeriod;
}
export interface GetMessagingAccountStatsOutputArgs {
  id: pulumi.Input<string>;
  period?: pulumi.Input<StatsPeriod>;
}
/** Daily series and totals, as the service gives them. */
export type GetMessagingAccountStatsResult = MessagingAccountStats;

/** One messaging account's usage over a period. */
export async function getMessagingAccountStats(
  args: GetMessagingAccountStatsArgs,
): Promise<GetMessagingAccountStatsResult> {
  const { id, period } = checkedArgs("getMessagingAccountStats", statsArgs, args);
  return programClient().messagingAccounts.stats(id, period);
}

export function getMessagingAccountStatsOutput(
  args: GetMessagingAccountStatsOutputArgs,
): pulumi.Output<GetMessagingAccountStatsResult> {
  return rootSdk()
    .all([args.id, args.period])
    .apply(([id, p]) => getMessagingAccountStats({ id, period: p }));
}
