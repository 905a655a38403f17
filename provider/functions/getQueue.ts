import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import { messagingRegion, queueName, type MessagingRegion, type QueueRecord } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { validArg } from "./validArgs";

export interface GetQueueArgs {
  region: MessagingRegion;
  name: string;
  /** Default: mgmt:messagingToken. */
  token?: string;
}
export interface GetQueueOutputArgs {
  region: pulumi.Input<MessagingRegion>;
  name: pulumi.Input<string>;
  token?: pulumi.Input<string>;
}
export type GetQueueResult = QueueRecord;

/** One queue; fails naming the queue when it does not exist. */
export async function getQueue(args: GetQueueArgs): Promise<GetQueueResult> {
  const name = validArg("getQueue", "name", queueName, args.name);
  return programClient()
    .queues({ region: validArg("getQueue", "region", messagingRegion, args.region), token: args.token })
    .get(name);
}

/** A secret token keeps the result secret. */
export function getQueueOutput(args: GetQueueOutputArgs): pulumi.Output<GetQueueResult> {
  return rootSdk()
    .all([args.region, args.name, args.token])
    .apply(([region, name, token]) => getQueue({ region, name, token }));
}
