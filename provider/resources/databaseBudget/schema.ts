/**
 * What the DatabaseBudget provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import { databaseBudget } from "../../api/schemas";
import { budgetFields, objectId, type BudgetState } from "../budgetSchema";

export const Inputs = z.object({ databaseId: objectId("database"), ...budgetFields(databaseBudget) });
export type Inputs = z.output<typeof Inputs>;

export type DatabaseBudgetOutputs = BudgetState & {
  databaseId: string;
  databaseName?: string;
  region?: string;
  state?: string;
};

/** DatabaseBudgetOutputs as a schema, for the plugin schema (provider/plugin/schema.ts checks they agree). */
export const DatabaseBudgetOutputsSchema = z.object({
  databaseId: z.string().meta({ description: "The database's id." }),
  budget: z.number().meta({ description: "The monthly budget, as the service reports it." }),
  before: z.object({ budget: z.number() }).optional(),
  previousBudget: z
    .number()
    .meta({ description: "The budget before this resource took it over: what destroy gives back." }),
  budgetSet: z.number().meta({ description: "The budget this stack last set." }),
  managedBy: z.string().optional().meta({ description: "The identity that manages the budget." }),
  databaseName: z.string().optional(),
  region: z.string().optional(),
  state: z.string().optional(),
});
