/**
 * FlowControlKey: the declaration a program uses (args, outputs, class). What the engine does
 * with it (pause, pin, reset, and what destroy gives back) is in operations.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { secretOrUndefined, type ActionTargetArgs } from "../messagingFields";
import { providerFor } from "../dynamicDoor";
import { flowControlKey } from "./declaration";

export type { PinSpec } from "./schema";

/** Descriptions: the inputs' schema, written onto the compiled declaration (scripts/argDocs.ts). */
export interface FlowControlKeySpec {
  key: string;
  paused?: pulumi.Input<boolean>;
  resetRateTrigger?: pulumi.Input<string | number>;
  pin?: pulumi.Input<{ parallelism?: number; rate?: number; period?: number }>;
}

export class FlowControlKey extends pulumi.dynamic.Resource {
  declare readonly key: pulumi.Output<string>;
  declare readonly paused: pulumi.Output<boolean>;
  declare readonly waitListSize: pulumi.Output<number>;
  declare readonly lastResetTrigger: pulumi.Output<string | number | undefined>;
  /** The pinned limits, as last applied or, after a refresh, as the service reports them. */
  declare readonly pin: pulumi.Output<{ parallelism?: number; rate?: number; period?: number } | undefined>;
  /** The account this key is managed on (`account:<id>@<region>`), or the fingerprint of its token where the account cannot be told; never the token. */
  declare readonly managedBy: pulumi.Output<string>;

  constructor(name: string, args: ActionTargetArgs & FlowControlKeySpec, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor(flowControlKey, args.token),
      name,
      {
        waitListSize: undefined,
        lastResetTrigger: undefined,
        managedBy: undefined,
        region: args.region,
        token: secretOrUndefined(args.token),
        key: args.key,
        paused: args.paused,
        resetRateTrigger: args.resetRateTrigger,
        pin: args.pin,
      },
      { ...opts, additionalSecretOutputs: ["token"] },
      "mgmt",
      "FlowControlKey",
    );
  }
}
