/**
 * MessagingBudget: the monthly spending limit of one messaging account (endpoint 5), read from the
 * account list (endpoint 4). The contract is budget.ts's.
 */
import type { MessagingAccountRecord } from "../../api/schemas";
import { budgetOperations } from "../budget";
import { withoutUndefined } from "../../withoutUndefined";
import { Inputs, type MessagingBudgetOutputs } from "./schema";

export const messagingBudgetOperations = budgetOperations<MessagingAccountRecord, Inputs, MessagingBudgetOutputs>(
  {
    names: {
      kind: "MessagingBudget",
      what: "messaging account",
      idField: "accountId",
      listedBy: "getMessagingAccounts()",
    },
    idIn: (inputs) => inputs.accountId,
    inputsOf: (accountId, budget) => ({ accountId, budget }),
    list: (client) => client.messagingAccounts.list(),
    // The service keeps a deleted account, marked: it has no budget left to manage.
    find: (accounts, id) => accounts.find((a) => a.id === id && !a.deletion_time),
    setBudget: (client, id, value) => client.messagingAccounts.setBudget(id, value),
    outputs: (a, budgetState) =>
      withoutUndefined({ accountId: a.id, region: a.region, state: a.state, type: a.type, ...budgetState }),
    takeover: (accountId) => ({ kind: "messaging budget", id: accountId }),
  },
  Inputs,
);
