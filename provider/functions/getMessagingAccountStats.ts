import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { MessagingAccountStats, StatsPeriod } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { statsArgs } from "./args";
import { checkedArgs } from "./validArgs";

export interface GetMessagingAccountStatsArgs {
  id: string;
  /** One of 1h, 3h, 12h, 1d, 3d, 7d, 30d; default 1h. */
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
