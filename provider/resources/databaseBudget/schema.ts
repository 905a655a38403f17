/**
 * What the DatabaseBudget provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import type { Same } from "../../sameShape";
import { databaseBudget } from "../../api/schemas";
import { budgetFields, budgetState, objectId, type BudgetState } from "../budgetSchema";

export const Inputs = z.object({ databaseId: objectId("database", "getDatabases()"), ...budgetFields(databaseBudget) });
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
  ...budgetState,
  databaseName: z.string().optional(),
  region: z.string().optional(),
  state: z.string().optional(),
});

/** The stored-output interface and its schema agree, key for key and type for type: tsc fails here when one drifts. */
export const OUTPUTS_AGREE: Same<z.infer<typeof DatabaseBudgetOutputsSchema>, DatabaseBudgetOutputs> = true;
