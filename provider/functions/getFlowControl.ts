import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { FlowControlInfo } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { flowControlArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetFlowControlArgs {
  key: string;
  token?: string;
}
export interface GetFlowControlOutputArgs {
  key: pulumi.Input<string>;
  token?: pulumi.Input<string>;
}
/** The key's wait list and, where the service reports them, its limits and pause; never the token. */
export type GetFlowControlResult = FlowControlInfo;

/** One flow control key, read from the region-less address. */
export async function getFlowControl(args: GetFlowControlArgs): Promise<GetFlowControlResult> {
  const { key, token } = checkedArgs("getFlowControl", flowControlArgs, args);
  return programClient().flowControl({ token }).get(key);
}

/** A secret token keeps the result secret, as Pulumi does for anything computed from a secret. */
export function getFlowControlOutput(args: GetFlowControlOutputArgs): pulumi.Output<GetFlowControlResult> {
  return rootSdk()
    .all([args.key, args.token])
    .apply(([key, token]) => getFlowControl({ key, token }));
}
