import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { MessagingRegion } from "../api/schemas";
import type { UrlGroupRecord } from "../api/urlGroupSchemas";
import { programClient } from "../resources/programClient";
import { urlGroupArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetUrlGroupArgs {
  region: MessagingRegion;
  name: string;
  token?: string;
}
export interface GetUrlGroupOutputArgs {
  region: pulumi.Input<MessagingRegion>;
  name: pulumi.Input<string>;
  token?: pulumi.Input<string>;
}
export type GetUrlGroupResult = UrlGroupRecord;

/** One URL group with its endpoints; fails naming the group when it does not exist. */
export async function getUrlGroup(args: GetUrlGroupArgs): Promise<GetUrlGroupResult> {
  const { region, name, token } = checkedArgs("getUrlGroup", urlGroupArgs, args);
  return programClient().urlGroups({ region, token }).get(name);
}

/** A secret token keeps the result secret. */
export function getUrlGroupOutput(args: GetUrlGroupOutputArgs): pulumi.Output<GetUrlGroupResult> {
  return rootSdk()
    .all([args.region, args.name, args.token])
    .apply(([region, name, token]) => getUrlGroup({ region, name, token }));
}
