import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import { camelize } from "../api/schemas";
import { programClient } from "../resources/programClient";
import type { GetSearchIndexResult } from "./getSearchIndex";

/** Every index of the configured user, each as `getSearchIndex` returns it. */
export type GetSearchIndexesResult = GetSearchIndexResult[];

export async function getSearchIndexes(): Promise<GetSearchIndexesResult> {
  return (await programClient().searchIndexes.list()).map((r) => camelize(r));
}

/** Every index, as a secret Output (the records carry tokens). */
export function getSearchIndexesOutput(): pulumi.Output<GetSearchIndexesResult> {
  return rootSdk().secret(getSearchIndexes());
}
