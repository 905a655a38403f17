import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { MessagingRegion } from "../api/schemas";
import type { ScheduleRecord } from "../api/scheduleSchemas";
import { programClient } from "../resources/programClient";
import { schedulesArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetSchedulesArgs {
  region: MessagingRegion;
  token?: string;
}
export interface GetSchedulesOutputArgs {
  region: pulumi.Input<MessagingRegion>;
  token?: pulumi.Input<string>;
}
export type GetSchedulesResult = ScheduleRecord[];

/** Every schedule of the account in `region`, whoever made it. */
export async function getSchedules(args: GetSchedulesArgs): Promise<GetSchedulesResult> {
  const { region, token } = checkedArgs("getSchedules", schedulesArgs, args);
  return programClient().schedules({ region, token }).list();
}

/** A secret token keeps the result secret. */
export function getSchedulesOutput(args: GetSchedulesOutputArgs): pulumi.Output<GetSchedulesResult> {
  return rootSdk()
    .all([args.region, args.token])
    .apply(([region, token]) => getSchedules({ region, token }));
}
