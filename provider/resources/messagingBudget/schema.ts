/**
 * What the MessagingBudget provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import { budget, type MessagingRegion, type Reported } from "../../api/schemas";
import { budgetFields, objectId, type BudgetState } from "../budget";

export const Inputs = z.object({ accountId: objectId("messaging account"), ...budgetFields(budget) });
export type Inputs = z.output<typeof Inputs>;

export type MessagingBudgetOutputs = BudgetState & {
  accountId: string;
  state?: string;
  type?: string;
  region: Reported<MessagingRegion>;
};
