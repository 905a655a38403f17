/**
 * MessagingAccount: the declaration a program uses (args, outputs, class). What the engine does
 * with it is in provider.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import type { MessagingPlan, MessagingRegion, Reported } from "../../api/schemas";
import { providerFor } from "../serializedProvider";

export type { MessagingAccountOutputs } from "./schema";

export interface MessagingAccountArgs {
  /** An existing account's id (from `getMessagingAccounts()`): the API cannot create one. Changing it replaces the resource. */
  accountId: pulumi.Input<string>;
  /**
   * Any value (a date, a ticket number). A value the account has not seen yet replaces its
   * tokens; the old ones stop working at once. `token` and `readOnlyToken` change in the same
   * `up`, and resources fed from `token` act with the new one. Creating with a value does not
   * rotate; removing it does nothing.
   */
  tokenRotation?: pulumi.Input<string>;
  /**
   * `paid`, `fixed_1m`, `fixed_10m` or `fixed_100m`. `up` moves the account there; there is no way
   * back to free, and destroy leaves the plan as it is. Left out, the plan is not this stack's.
   */
  plan?: pulumi.Input<MessagingPlan>;
  /**
   * Production pack on or off. Destroy (or leaving it out later) gives back the value found before
   * this stack changed it, while the stack's value is still in place.
   */
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
      providerFor("messagingAccount"),
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
