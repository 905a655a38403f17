/**
 * MessagingBudget: the declaration a program uses (args, outputs, class). What the engine does
 * with it is in operations.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import type { MessagingRegion, Reported } from "../../api/schemas";
import { providerFor } from "../dynamicDoor";
import { messagingBudget } from "./declaration";

export type { MessagingBudgetOutputs } from "./schema";

/** Descriptions: the inputs' schema, written onto the compiled declaration (scripts/argDocs.ts). */
export interface MessagingBudgetArgs {
  accountId: pulumi.Input<string>;
  budget: pulumi.Input<number>;
}

export class MessagingBudget extends pulumi.dynamic.Resource {
  declare readonly accountId: pulumi.Output<string>;
  declare readonly budget: pulumi.Output<number>;
  /** The budget the account had before this resource took it over; restored on delete while the account still has the stack's value. */
  declare readonly previousBudget: pulumi.Output<number>;
  /** The account's state, type and region as last read. */
  declare readonly state: pulumi.Output<string | undefined>;
  declare readonly type: pulumi.Output<string | undefined>;
  declare readonly region: pulumi.Output<Reported<MessagingRegion>>;
  /** The identity that manages the budget: `user@address` of the management API. */
  declare readonly managedBy: pulumi.Output<string>;

  constructor(name: string, args: MessagingBudgetArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor(messagingBudget),
      name,
      {
        previousBudget: undefined,
        budgetSet: undefined,
        state: undefined,
        type: undefined,
        region: undefined,
        managedBy: undefined,
        accountId: args.accountId,
        budget: args.budget,
        resourceName: name,
      },
      opts,
      "mgmt",
      "MessagingBudget",
    );
  }
}
