/**
 * What the MessagingBudget provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import { budget, type MessagingRegion, type Reported } from "../../api/schemas";

export const Inputs = z.object({
  accountId: z.string({ error: "must be a string" }).min(1, "must not be empty (give a messaging account id)"),
  budget,
  /** The Pulumi resource name, so that a conflict can name both resources. */
  resourceName: z.string().optional(),
  /** The account's budget as `check` found it before this stack acted (before.ts). */
  before: z.object({ budget: z.number() }).optional(),
});
export type Inputs = z.infer<typeof Inputs>;

export interface MessagingBudgetOutputs extends Inputs {
  previousBudget: number;
  /**
   * The budget this stack last set (refresh records the account's budget in `budget`, never
   * here): destroy restores `previousBudget` only while the account still has this value.
   */
  budgetSet: number;
  /** The identity that manages the budget (identity.ts); absent only until recovery's refresh. */
  managedBy?: string;
  state?: string;
  type?: string;
  region: Reported<MessagingRegion>;
}
