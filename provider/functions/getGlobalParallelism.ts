import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { GlobalParallelism } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { globalParallelismArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetGlobalParallelismArgs {
  token?: string;
}
export interface GetGlobalParallelismOutputArgs {
  token?: pulumi.Input<string>;
}
/** The account's global parallelism: its maximum and how much is in use. */
export type GetGlobalParallelismResult = GlobalParallelism;

export async function getGlobalParallelism(args: GetGlobalParallelismArgs = {}): Promise<GetGlobalParallelismResult> {
  const { token } = checkedArgs("getGlobalParallelism", globalParallelismArgs, args);
  return programClient().flowControl({ token }).globalParallelism();
}

/** A secret token keeps the result secret. */
export function getGlobalParallelismOutput(
  args: GetGlobalParallelismOutputArgs = {},
): pulumi.Output<GetGlobalParallelismResult> {
  return rootSdk()
    .output(args.token)
    .apply((token) => getGlobalParallelism({ token }));
}
