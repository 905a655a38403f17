/**
 * MessagingSigningKeys: the declaration a program uses (args, outputs, class). What the engine
 * does with it is in operations.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { secretOrUndefined, type ActionTargetArgs } from "../messagingFields";
import { providerFor } from "../dynamicDoor";
import { messagingSigningKeys } from "./declaration";

/** Descriptions: the inputs' schema, written onto the compiled declaration (scripts/argDocs.ts). */
export interface SigningKeysSpec {
  rotation?: pulumi.Input<string>;
}

export class MessagingSigningKeys extends pulumi.dynamic.Resource {
  declare readonly region: pulumi.Output<string>;
  /** Secret: the key receivers verify message signatures with now. */
  declare readonly current: pulumi.Output<string>;
  /** Secret: the key the next rotation makes current; receivers hold it beside `current`. */
  declare readonly next: pulumi.Output<string>;
  /** The last `rotation` value acted on. */
  declare readonly rotation: pulumi.Output<string | undefined>;
  declare readonly managedBy: pulumi.Output<string>;

  constructor(name: string, args: ActionTargetArgs & SigningKeysSpec, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor(messagingSigningKeys, args.token),
      name,
      {
        current: undefined,
        next: undefined,
        nextWhenActed: undefined,
        managedBy: undefined,
        tokenFingerprint: undefined,
        region: args.region,
        token: secretOrUndefined(args.token),
        rotation: args.rotation,
      },
      {
        ...opts,
        additionalSecretOutputs: [
          ...(opts?.additionalSecretOutputs ?? []),
          "token",
          "current",
          "next",
          "nextWhenActed",
        ],
      },
      "mgmt",
      "MessagingSigningKeys",
    );
  }
}
