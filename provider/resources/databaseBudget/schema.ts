/**
 * What the DatabaseBudget provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import { databaseBudget } from "../../api/schemas";
import { budgetFields, objectId, type BudgetState } from "../budget";

export const Inputs = z.object({ databaseId: objectId("database"), ...budgetFields(databaseBudget) });
export type Inputs = z.output<typeof Inputs>;

export type DatabaseBudgetOutputs = BudgetState & {
  databaseId: string;
  databaseName?: string;
  region?: string;
  state?: string;
};
