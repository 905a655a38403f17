/**
 * DatabaseBudget: the declaration a program uses (args, outputs, class). What the engine does
 * with it is in operations.ts and budget.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { providerFor } from "../dynamicDoor";
import { databaseBudget } from "./declaration";

export type { DatabaseBudgetOutputs } from "./schema";

/** Descriptions: the inputs' schema, written onto the compiled declaration (scripts/argDocs.ts). */
export interface DatabaseBudgetArgs {
  databaseId: pulumi.Input<string>;
  budget: pulumi.Input<number>;
}

export class DatabaseBudget extends pulumi.dynamic.Resource {
  declare readonly databaseId: pulumi.Output<string>;
  declare readonly budget: pulumi.Output<number>;
  /** The budget the database had before this resource took it over; restored on delete while the database still has the stack's value. */
  declare readonly previousBudget: pulumi.Output<number>;
  /** The database's name, where it runs (the service's `primary_region`) and its state, as last read. */
  declare readonly databaseName: pulumi.Output<string | undefined>;
  declare readonly region: pulumi.Output<string | undefined>;
  declare readonly state: pulumi.Output<string | undefined>;
  /** The identity that manages the budget: `user@address` of the management API. */
  declare readonly managedBy: pulumi.Output<string>;

  constructor(name: string, args: DatabaseBudgetArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor(databaseBudget),
      name,
      {
        previousBudget: undefined,
        budgetSet: undefined,
        databaseName: undefined,
        region: undefined,
        state: undefined,
        managedBy: undefined,
        databaseId: args.databaseId,
        budget: args.budget,
        resourceName: name,
      },
      opts,
      "mgmt",
      "DatabaseBudget",
    );
  }
}
