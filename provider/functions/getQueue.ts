import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { MessagingRegion, QueueRecord } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { queueArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetQueueArgs {
  region: MessagingRegion;
  name: string;
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
  const { region, name, token } = checkedArgs("getQueue", queueArgs, args);
  return programClient().queues({ region, token }).get(name);
}

/** A secret token keeps the result secret. */
export function getQueueOutput(args: GetQueueOutputArgs): pulumi.Output<GetQueueResult> {
  return rootSdk()
    .all([args.region, args.name, args.token])
    .apply(([region, name, token]) => getQueue({ region, name, token }));
}
