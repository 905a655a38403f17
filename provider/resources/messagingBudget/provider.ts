/**
 * MessagingBudget: the monthly spending limit of one messaging account (endpoint 5), read from the
 * account list (endpoint 4). The contract is budget.ts's.
 */
import type { MessagingAccountRecord } from "../../api/schemas";
import { budgetProvider } from "../budget";
import { Inputs, type MessagingBudgetOutputs } from "./schema";

export const messagingBudgetProvider = budgetProvider<"accountId", MessagingAccountRecord, MessagingBudgetOutputs>({
  kind: "MessagingBudget",
  idField: "accountId",
  what: "messaging account",
  listedBy: "getMessagingAccounts()",
  takeover: (accountId) => ({ kind: "messaging budget", accountId }),
  list: (client) => client.messagingAccounts.list(),
  idOf: (a) => a.id,
  isLive: (a) => !a.deletion_time,
  budgetOf: (a) => a.budget,
  setBudget: (client, id, value) => client.messagingAccounts.setBudget(id, value),
  details: (a) => ({ region: a.region, ...(a.state !== undefined ? { state: a.state } : {}), ...(a.type !== undefined ? { type: a.type } : {}) }),
}, Inputs);
