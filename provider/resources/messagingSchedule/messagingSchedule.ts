/**
 * MessagingSchedule: the declaration a program uses (args, outputs, class). What the engine does
 * with it is in operations.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { secretOrUndefined, type ActionTargetArgs } from "../messagingFields";
import { providerFor } from "../dynamicDoor";
import { messagingSchedule } from "./declaration";

/** Descriptions: the inputs' schema, written onto the compiled declaration (scripts/argDocs.ts). */
export interface ScheduleSpec {
  destination: pulumi.Input<string>;
  cron: pulumi.Input<string>;
  timeZone?: pulumi.Input<string>;
  method?: pulumi.Input<"GET" | "POST" | "PUT" | "PATCH" | "DELETE">;
  body?: pulumi.Input<string>;
  contentType?: pulumi.Input<string>;
  headers?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  retries?: pulumi.Input<number>;
  retryDelay?: pulumi.Input<string>;
  delay?: pulumi.Input<string>;
  timeout?: pulumi.Input<string>;
  callback?: pulumi.Input<string>;
  failureCallback?: pulumi.Input<string>;
  flowControl?: pulumi.Input<{
    key: pulumi.Input<string>;
    parallelism?: pulumi.Input<number>;
    rate?: pulumi.Input<number>;
    period?: pulumi.Input<string>;
  }>;
  labels?: pulumi.Input<pulumi.Input<string>[]>;
  paused?: pulumi.Input<boolean>;
}

const SETTINGS = [
  "destination",
  "cron",
  "timeZone",
  "method",
  "body",
  "contentType",
  "headers",
  "retries",
  "retryDelay",
  "delay",
  "timeout",
  "callback",
  "failureCallback",
  "flowControl",
  "labels",
  "paused",
] as const;

export class MessagingSchedule extends pulumi.dynamic.Resource {
  declare readonly scheduleId: pulumi.Output<string>;
  declare readonly destination: pulumi.Output<string>;
  declare readonly cron: pulumi.Output<string>;
  declare readonly paused: pulumi.Output<boolean | undefined>;
  declare readonly nextScheduleTime: pulumi.Output<number | undefined>;
  declare readonly lastScheduleTime: pulumi.Output<number | undefined>;
  declare readonly created: pulumi.Output<boolean | undefined>;
  declare readonly managedBy: pulumi.Output<string>;

  constructor(name: string, args: ActionTargetArgs & ScheduleSpec, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor(messagingSchedule, args.token),
      name,
      {
        scheduleId: undefined,
        nextScheduleTime: undefined,
        lastScheduleTime: undefined,
        created: undefined,
        managedBy: undefined,
        region: args.region,
        token: secretOrUndefined(args.token),
        ...Object.fromEntries(SETTINGS.map((k) => [k, args[k]])),
      },
      { ...opts, additionalSecretOutputs: ["token"] },
      "mgmt",
      "MessagingSchedule",
    );
  }
}
