import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { FlowControlInfo, MessagingRegion } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { flowControlKeysArgs } from "./args";
import { getMessagingAccount } from "./getMessagingAccount";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetFlowControlKeysArgs {
  token?: string;
  region?: MessagingRegion;
}
export interface GetFlowControlKeysOutputArgs {
  token?: pulumi.Input<string>;
  region?: pulumi.Input<MessagingRegion>;
}
/** Every key of the account, as `getFlowControl` reports each; never the token. */
export type GetFlowControlKeysResult = FlowControlInfo[];

export async function getFlowControlKeys(args: GetFlowControlKeysArgs = {}): Promise<GetFlowControlKeysResult> {
  const checked = checkedArgs("getFlowControlKeys", flowControlKeysArgs, args);
  const token =
    checked.token ??
    (checked.region !== undefined ? (await getMessagingAccount({ region: checked.region })).token : undefined);
  return programClient().flowControl({ token }).list();
}

/** Secret when the token is: as Pulumi does for anything computed from a secret. */
export function getFlowControlKeysOutput(
  args: GetFlowControlKeysOutputArgs = {},
): pulumi.Output<GetFlowControlKeysResult> {
  return rootSdk()
    .all([args.token, args.region])
    .apply(([token, region]) => getFlowControlKeys({ token, region }));
}
