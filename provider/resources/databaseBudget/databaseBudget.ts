/**
 * DatabaseBudget: the declaration a program uses (args, outputs, class). What the engine does
 * with it is in provider.ts and budget.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { providerFor } from "../serializedProvider";

export type { DatabaseBudgetOutputs } from "./schema";

export interface DatabaseBudgetArgs {
  /** The database's id (from `getDatabases()`). Changing it replaces the resource. */
  databaseId: pulumi.Input<string>;
  /** Whole dollars per month: 0 (no limit) or 20 to 10000. Changes update in place. */
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
      providerFor("databaseBudget"),
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
