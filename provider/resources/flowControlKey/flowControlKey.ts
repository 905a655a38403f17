/**
 * FlowControlKey: the declaration a program uses (args, outputs, class). What the engine does
 * with it (pause, pin, reset, and what destroy gives back) is in provider.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { secretOrUndefined, type ActionTargetArgs } from "../messagingCalls";
import { providerFor } from "../serializedProvider";

export type { PinSpec } from "./schema";

export interface FlowControlKeySpec {
  /** The flow control key, as messages carry it (keys exist once messages have used them). */
  key: string;
  /**
   * true pauses delivery of the key's messages; false lifts a pause. Left out, the pause is not
   * this stack's: one an operator set stays.
   */
  paused?: pulumi.Input<boolean>;
  /** Change the value to reset the key's rate once (for example a date or an incident id). */
  resetRateTrigger?: pulumi.Input<string | number>;
  /**
   * Limits to pin, winning over those carried by messages: `parallelism` (messages at once) and
   * `rate` messages per `period` seconds (default 1). Removing a part unpins it.
   */
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
      providerFor("flowControlKey", args.token),
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
