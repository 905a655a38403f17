/**
 * What the MessagingBudget provider receives (after `check`) and what the stack stores.
 */
import { budget, type MessagingRegion, type Reported } from "../../api/schemas";
import { budgetInputs, type BudgetOutputs } from "../budget";

export const Inputs = budgetInputs("accountId", "messaging account", budget);
export type Inputs = import("zod").output<typeof Inputs>;

export type MessagingBudgetOutputs = BudgetOutputs<"accountId"> & {
  state?: string;
  type?: string;
  region: Reported<MessagingRegion>;
};
