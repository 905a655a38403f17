import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { MessagingRegion, QueueRecord } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { queuesArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetQueuesArgs {
  region: MessagingRegion;
  token?: string;
}
export interface GetQueuesOutputArgs {
  region: pulumi.Input<MessagingRegion>;
  token?: pulumi.Input<string>;
}
export type GetQueuesResult = QueueRecord[];

/** Every queue of the account in `region`, with its lag. */
export async function getQueues(args: GetQueuesArgs): Promise<GetQueuesResult> {
  const { region, token } = checkedArgs("getQueues", queuesArgs, args);
  return programClient().queues({ region, token }).list();
}

/** A secret token keeps the result secret. */
export function getQueuesOutput(args: GetQueuesOutputArgs): pulumi.Output<GetQueuesResult> {
  return rootSdk()
    .all([args.region, args.token])
    .apply(([region, token]) => getQueues({ region, token }));
}
