/**
 * DatabaseBudget: the monthly spending limit of one database (contract: update-budget, read from
 * the database list). The contract is budget.ts's, the same as MessagingBudget's.
 */
import type { DatabaseRecord } from "../../api/schemas";
import { budgetProvider } from "../budget";
import { Inputs, type DatabaseBudgetOutputs } from "./schema";

export const databaseBudgetProvider = budgetProvider<"databaseId", DatabaseRecord, DatabaseBudgetOutputs>({
  kind: "DatabaseBudget",
  idField: "databaseId",
  what: "database",
  listedBy: "getDatabases()",
  takeover: (databaseId) => ({ kind: "database budget", databaseId }),
  list: (client) => client.databases.list(),
  idOf: (d) => d.database_id,
  isLive: () => true,
  budgetOf: (d) => d.budget,
  setBudget: (client, id, value) => client.databases.setBudget(id, value),
  details: (d) => Object.fromEntries(Object.entries({ databaseName: d.database_name, region: d.primary_region ?? d.region, state: d.state }).filter(([, v]) => v !== undefined)),
}, Inputs);
