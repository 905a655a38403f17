/**
 * MessagingAccount: the declaration a program uses (args, outputs, class). What the engine does
 * with it is in operations.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import type { MessagingPlan, MessagingRegion, Reported } from "../../api/schemas";
import { providerFor } from "../dynamicDoor";
import { messagingAccount } from "./declaration";

export type { MessagingAccountOutputs } from "./schema";

/** Descriptions: the inputs' schema, written onto the compiled declaration (scripts/argDocs.ts). */
export interface MessagingAccountArgs {
  accountId: pulumi.Input<string>;
  tokenRotation?: pulumi.Input<string>;
  plan?: pulumi.Input<MessagingPlan>;
  prodPack?: pulumi.Input<boolean>;
}

export class MessagingAccount extends pulumi.dynamic.Resource {
  declare readonly accountId: pulumi.Output<string>;
  /** Secret: the account's token, as of this `up` (rotated when `tokenRotation` changes). */
  declare readonly token: pulumi.Output<string>;
  /** Secret. */
  declare readonly readOnlyToken: pulumi.Output<string | undefined>;
  /** The plan as the service reports it: `free`, `paid` or a fixed tier. */
  declare readonly plan: pulumi.Output<string>;
  /** The production pack as the service reports it. */
  declare readonly prodPack: pulumi.Output<boolean>;
  declare readonly type: pulumi.Output<string | undefined>;
  declare readonly reservedType: pulumi.Output<string | undefined>;
  declare readonly region: pulumi.Output<Reported<MessagingRegion>>;
  declare readonly state: pulumi.Output<string | undefined>;
  /** The identity that manages the account: `user@address` of the management API. */
  declare readonly managedBy: pulumi.Output<string>;

  /** Same as `prodPack`, named as the service's record names it. */
  get prodPackEnabled(): pulumi.Output<boolean> {
    return this.prodPack;
  }

  constructor(name: string, args: MessagingAccountArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor(messagingAccount),
      name,
      {
        token: undefined,
        readOnlyToken: undefined,
        type: undefined,
        reservedType: undefined,
        region: undefined,
        state: undefined,
        managedBy: undefined,
        accountId: args.accountId,
        tokenRotation: args.tokenRotation,
        plan: args.plan,
        prodPack: args.prodPack,
        resourceName: name,
      },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "token", "readOnlyToken"] },
      "mgmt",
      "MessagingAccount",
    );
  }
}
