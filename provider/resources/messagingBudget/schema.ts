/**
 * What the MessagingBudget provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import { budget, type MessagingRegion, type Reported } from "../../api/schemas";
import { budgetFields, objectId, type BudgetState } from "../budgetSchema";

export const Inputs = z.object({ accountId: objectId("messaging account"), ...budgetFields(budget) });
export type Inputs = z.output<typeof Inputs>;

export type MessagingBudgetOutputs = BudgetState & {
  accountId: string;
  state?: string;
  type?: string;
  region: Reported<MessagingRegion>;
};

/** MessagingBudgetOutputs as a schema, for the plugin schema (provider/plugin/schema.ts checks they agree). */
export const MessagingBudgetOutputsSchema = z.object({
  accountId: z.string().meta({ description: "The messaging account's id." }),
  budget: z.number().meta({ description: "The monthly budget, as the service reports it." }),
  before: z.object({ budget: z.number() }).optional(),
  previousBudget: z
    .number()
    .meta({ description: "The budget before this resource took it over: what destroy gives back." }),
  budgetSet: z.number().meta({ description: "The budget this stack last set." }),
  managedBy: z.string().optional().meta({ description: "The identity that manages the budget." }),
  state: z.string().optional(),
  type: z.string().optional(),
  region: z.string().meta({ description: "The account's region, as the service reports it." }),
});
