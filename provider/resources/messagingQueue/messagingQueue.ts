/**
 * MessagingQueue: the declaration a program uses (args, outputs, class). What the engine does
 * with it, and the two modes (declared, existing), are in operations.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { secretOrUndefined, type ActionTargetArgs } from "../messagingFields";
import { providerFor } from "../dynamicDoor";
import { messagingQueue } from "./declaration";

/** Descriptions: the inputs' schema, written onto the compiled declaration (scripts/argDocs.ts). */
/** Descriptions: the inputs' schema, written onto the compiled declaration (scripts/argDocs.ts). */
export interface QueueSpec {
  name: string;
  parallelism?: pulumi.Input<number>;
  paused?: pulumi.Input<boolean>;
  resumeTrigger?: pulumi.Input<string | number>;
}

export class MessagingQueue extends pulumi.dynamic.Resource {
  declare readonly queue: pulumi.Output<string>;
  declare readonly parallelism: pulumi.Output<number | undefined>;
  declare readonly paused: pulumi.Output<boolean | undefined>;
  declare readonly lag: pulumi.Output<number | undefined>;
  declare readonly created: pulumi.Output<boolean | undefined>;
  declare readonly lastResumeTrigger: pulumi.Output<string | number | undefined>;
  declare readonly managedBy: pulumi.Output<string>;

  constructor(name: string, args: ActionTargetArgs & QueueSpec, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor(messagingQueue, args.token),
      name,
      {
        lastResumeTrigger: undefined,
        lag: undefined,
        created: undefined,
        managedBy: undefined,
        region: args.region,
        token: secretOrUndefined(args.token),
        queue: args.name,
        parallelism: args.parallelism,
        paused: args.paused,
        resumeTrigger: args.resumeTrigger,
      },
      { ...opts, additionalSecretOutputs: ["token"] },
      "mgmt",
      "MessagingQueue",
    );
  }
}
