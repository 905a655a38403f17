/**
 * The shapes every budget resource shares (MessagingBudget, DatabaseBudget): their schemas import
 * this, not budget.ts, so that reading a schema (the plugin's, provider/plugin/) loads no provider
 * code and no Pulumi SDK.
 */
import { z } from "zod";

/** The inputs every budget has beside the object's id. */
export type BudgetFields = {
  budget: number;
  /** The Pulumi resource name, so that a conflict can name both resources. */
  resourceName?: string;
  /** The budget as `check` found it before this stack acted (before.ts). */
  before?: { budget: number };
};

/** The schema of BudgetFields, given the object's rule for `budget` (messaging: 0 or 20 to 10000; databases: 0 to 10000). */
export const budgetFields = (budget: z.ZodType<number>) => ({
  budget,
  resourceName: z.string().optional(),
  before: z.object({ budget: z.number() }).optional(),
});

/** The id input's schema: a non-empty string. */
export const objectId = (what: string) =>
  z.string({ error: "must be a string" }).min(1, `must not be empty (give a ${what} id)`);

/** What a budget records beside the object's fields. */
export interface BudgetState {
  budget: number;
  /** The budget the object had before this resource took it over: what destroy gives back. */
  previousBudget: number;
  /**
   * The budget this stack last set (refresh records the object's budget in `budget`, never
   * here): destroy restores `previousBudget` only while the object still has this value.
   */
  budgetSet: number;
  /** The identity that manages the budget (identity.ts); absent only until recovery's refresh. */
  managedBy?: string;
  /** Recorded by recovery's import only (before.ts). */
  before?: { budget: number };
}
