import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { MessagingRegion } from "../api/schemas";
import type { UrlGroupRecord } from "../api/urlGroupSchemas";
import { programClient } from "../resources/programClient";
import { urlGroupsArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetUrlGroupsArgs {
  region: MessagingRegion;
  token?: string;
}
export interface GetUrlGroupsOutputArgs {
  region: pulumi.Input<MessagingRegion>;
  token?: pulumi.Input<string>;
}
export type GetUrlGroupsResult = UrlGroupRecord[];

/** Every URL group of the account in `region`, with its endpoints. */
export async function getUrlGroups(args: GetUrlGroupsArgs): Promise<GetUrlGroupsResult> {
  const { region, token } = checkedArgs("getUrlGroups", urlGroupsArgs, args);
  return programClient().urlGroups({ region, token }).list();
}

/** A secret token keeps the result secret. */
export function getUrlGroupsOutput(args: GetUrlGroupsOutputArgs): pulumi.Output<GetUrlGroupsResult> {
  return rootSdk()
    .all([args.region, args.token])
    .apply(([region, token]) => getUrlGroups({ region, token }));
}
