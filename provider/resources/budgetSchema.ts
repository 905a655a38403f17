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
  budget: budget.meta({
    description: "Whole dollars per month: 0 (no limit) or 20 to 10000. Changes update in place.",
  }),
  resourceName: z.string().optional(),
  before: z.object({ budget: z.number() }).optional(),
});

/** The id input's schema: a non-empty string; `listedBy`: the function that lists the ids. */
export const objectId = (what: string, listedBy: string) =>
  z
    .string({ error: "must be a string" })
    .min(1, `must not be empty (give a ${what} id)`)
    .meta({ description: `The ${what}'s id (from \`${listedBy}\`). Changing it replaces the resource.` });

/** What a budget records beside the object's fields (its outputs' schemas spread this). */
export const budgetState = {
  budget: z.number().meta({ description: "The monthly budget, as the service reports it." }),
  /** Recorded by recovery's import only (before.ts). */
  before: z.object({ budget: z.number() }).optional(),
  previousBudget: z
    .number()
    .meta({ description: "The budget before this resource took it over: what destroy gives back." }),
  /**
   * Refresh records the object's budget in `budget`, never here: destroy restores
   * `previousBudget` only while the object still has this value.
   */
  budgetSet: z.number().meta({ description: "The budget this stack last set." }),
  /** Absent only until recovery's refresh (identity.ts). */
  managedBy: z.string().optional().meta({ description: "The identity that manages the budget." }),
};
export type BudgetState = z.infer<z.ZodObject<typeof budgetState>>;
