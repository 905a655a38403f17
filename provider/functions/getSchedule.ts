import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { MessagingRegion } from "../api/schemas";
import type { ScheduleRecord } from "../api/scheduleSchemas";
import { programClient } from "../resources/programClient";
import { scheduleArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetScheduleArgs {
  region: MessagingRegion;
  scheduleId: string;
  token?: string;
}
export interface GetScheduleOutputArgs {
  region: pulumi.Input<MessagingRegion>;
  scheduleId: pulumi.Input<string>;
  token?: pulumi.Input<string>;
}
export type GetScheduleResult = ScheduleRecord;

/** One schedule; fails naming the schedule when it does not exist. */
export async function getSchedule(args: GetScheduleArgs): Promise<GetScheduleResult> {
  const { region, scheduleId, token } = checkedArgs("getSchedule", scheduleArgs, args);
  return programClient().schedules({ region, token }).get(scheduleId);
}

/** A secret token keeps the result secret. */
export function getScheduleOutput(args: GetScheduleOutputArgs): pulumi.Output<GetScheduleResult> {
  return rootSdk()
    .all([args.region, args.scheduleId, args.token])
    .apply(([region, scheduleId, token]) => getSchedule({ region, scheduleId, token }));
}
