import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { SearchIndexStats, StatsPeriod } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { statsArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetSearchIndexStatsArgs {
  id: string;
  period?: StatsPeriod;
}
export interface GetSearchIndexStatsOutputArgs {
  id: pulumi.Input<string>;
  period?: pulumi.Input<StatsPeriod>;
}
/** Metrics and time series of `{x, y}` points, as the service gives them. */
export type GetSearchIndexStatsResult = SearchIndexStats;

/** One index's usage over a period. */
export async function getSearchIndexStats(args: GetSearchIndexStatsArgs): Promise<GetSearchIndexStatsResult> {
  const { id, period } = checkedArgs("getSearchIndexStats", statsArgs, args);
  return programClient().searchIndexes.stats(id, period);
}

export function getSearchIndexStatsOutput(
  args: GetSearchIndexStatsOutputArgs,
): pulumi.Output<GetSearchIndexStatsResult> {
  return rootSdk()
    .all([args.id, args.period])
    .apply(([id, p]) => getSearchIndexStats({ id, period: p }));
}
