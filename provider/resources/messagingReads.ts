/**
 * Functions that read messaging state in the program: a key's flow control, an account's queues
 * and its global parallelism. Each takes a `token` (default mgmt:messagingToken); the results
 * never carry it, and the `*Output` forms keep a secret token's results secret, as Pulumi does
 * for anything computed from a secret.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { flowControlKey, queueName, messagingRegion as regionSchema, type FlowControlInfo, type GlobalParallelism, type MessagingRegion, type QueueRecord } from "../api/schemas";
import { programClient } from "./programClient";
import { UserError } from "../userError";

function valid<T>(field: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UserError(`${field}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  return parsed.data;
}

/** A key's wait list and, where the service reports them, its limits and pause, from the region-less address. */
export async function getFlowControl(args: { key: string; token?: string }): Promise<FlowControlInfo> {
  return programClient().getFlowControl(valid("key", flowControlKey, args.key), args.token);
}
export function getFlowControlOutput(args: { key: pulumi.Input<string>; token?: pulumi.Input<string> }): pulumi.Output<FlowControlInfo> {
  return pulumi.all([args.key, args.token]).apply(([key, token]) => getFlowControl({ key, token }));
}

/** Every queue of the account in `region`. */
export async function getQueues(args: { region: MessagingRegion; token?: string }): Promise<QueueRecord[]> {
  return programClient().listQueues(valid("region", regionSchema, args.region), args.token);
}
export function getQueuesOutput(args: { region: pulumi.Input<MessagingRegion>; token?: pulumi.Input<string> }): pulumi.Output<QueueRecord[]> {
  return pulumi.all([args.region, args.token]).apply(([region, token]) => getQueues({ region, token }));
}

/** One queue; fails naming the queue when it does not exist. */
export async function getQueue(args: { region: MessagingRegion; name: string; token?: string }): Promise<QueueRecord> {
  const name = valid("name", queueName, args.name);
  return programClient().getQueue(valid("region", regionSchema, args.region), name, args.token);
}
export function getQueueOutput(args: { region: pulumi.Input<MessagingRegion>; name: pulumi.Input<string>; token?: pulumi.Input<string> }): pulumi.Output<QueueRecord> {
  return pulumi.all([args.region, args.name, args.token]).apply(([region, name, token]) => getQueue({ region, name, token }));
}

/** The account's global parallelism: its maximum and how much is in use. */
export async function getGlobalParallelism(args: { token?: string } = {}): Promise<GlobalParallelism> {
  return programClient().getGlobalParallelism(args.token);
}
export function getGlobalParallelismOutput(args: { token?: pulumi.Input<string> } = {}): pulumi.Output<GlobalParallelism> {
  return pulumi.output(args.token).apply((token) => getGlobalParallelism({ token }));
}
