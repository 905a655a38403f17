import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import { camelize, type Camelized, type SearchIndexRecord } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { searchIndexArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetSearchIndexArgs {
  id: string;
}
export interface GetSearchIndexOutputArgs {
  id: pulumi.Input<string>;
}
/** Every field of the index record, in camelCase, tokens and throughput metrics included. */
export type GetSearchIndexResult = Camelized<SearchIndexRecord>;

/** One index by id. Use the Output form to keep its tokens secret. */
export async function getSearchIndex(args: GetSearchIndexArgs): Promise<GetSearchIndexResult> {
  const { id } = checkedArgs("getSearchIndex", searchIndexArgs, args);
  return camelize(await programClient().searchIndexes.get(id));
}

/** One index by id, as a secret Output (the record carries tokens). */
export function getSearchIndexOutput(args: GetSearchIndexOutputArgs): pulumi.Output<GetSearchIndexResult> {
  return rootSdk().secret(
    rootSdk()
      .output(args.id)
      .apply((id) => getSearchIndex({ id })),
  );
}
