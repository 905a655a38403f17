// A monthly spending cap per paid messaging account, reviewed like any other change.
import * as pulumi from "@pulumi/pulumi";
import { MessagingBudget, getMessagingAccounts } from "pulumi-mgmt";

const config = new pulumi.Config();
const budget = config.getNumber("budget") ?? 250; // dollars per month: 0 (no limit) or 20 to 10000

// An async program: the account list is read first, then one budget is declared per account.
// Destroy gives each account the budget it had before.
export = async () => {
  const paid = (await getMessagingAccounts()).filter((a) => a.type === "paid" && !a.deletionTime);
  const budgets = paid.map((a) => new MessagingBudget(`budget-${a.region}`, { accountId: a.id, budget }));
  return {
    budgets: budgets.map((b) => ({
      accountId: b.accountId,
      region: b.region,
      budget: b.budget,
      previousBudget: b.previousBudget,
    })),
  };
};
