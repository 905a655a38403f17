/**
 * What the MessagingBudget provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import type { Same } from "../../sameShape";
import { budget, type MessagingRegion, type Reported } from "../../api/schemas";
import { budgetFields, budgetState, objectId, type BudgetState } from "../budgetSchema";

export const Inputs = z.object({
  accountId: objectId("messaging account", "getMessagingAccounts()"),
  ...budgetFields(budget),
});
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

/** The stored-output interface and its schema agree, key for key and type for type: tsc fails here when one drifts. */
export const OUTPUTS_AGREE: Same<z.infer<typeof MessagingBudgetOutputsSchema>, MessagingBudgetOutputs> = true;
