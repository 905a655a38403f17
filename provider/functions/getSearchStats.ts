import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import { camelize, type Camelized, type SearchStats } from "../api/schemas";
import { programClient } from "../resources/programClient";

/** Totals over all of the user's indexes: recordCount, request, bandwidth, storage, rerankCount, billing. */
export type GetSearchStatsResult = Camelized<SearchStats>;

export async function getSearchStats(): Promise<GetSearchStatsResult> {
  return camelize(await programClient().searchIndexes.totals());
}

export function getSearchStatsOutput(): pulumi.Output<GetSearchStatsResult> {
  return rootSdk().output(getSearchStats());
}
