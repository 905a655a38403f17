/**
 * What the DatabaseBudget provider receives (after `check`) and what the stack stores.
 */
import { databaseBudget } from "../../api/schemas";
import { budgetInputs, type BudgetOutputs } from "../budget";

export const Inputs = budgetInputs("databaseId", "database", databaseBudget);
export type Inputs = import("zod").output<typeof Inputs>;

export type DatabaseBudgetOutputs = BudgetOutputs<"databaseId"> & {
  databaseName?: string;
  region?: string;
  state?: string;
};
