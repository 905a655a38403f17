/**
 * What the MessagingBudget provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import { budget, type MessagingRegion, type Reported } from "../../api/schemas";
import { budgetFields, budgetState, objectId, type BudgetState } from "../budgetSchema";

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
  ...budgetState,
  state: z.string().optional(),
  type: z.string().optional(),
  region: z.string().meta({ description: "The account's region, as the service reports it." }),
});
