/**
 * DatabaseBudget: the monthly spending limit of one database (contract: update-budget, read from
 * the database list). The contract is budget.ts's, the same as MessagingBudget's.
 */
import type { DatabaseRecord } from "../../api/schemas";
import { budgetOperations } from "../budget";
import { withoutUndefined } from "../../withoutUndefined";
import { Inputs, type DatabaseBudgetOutputs } from "./schema";

export const databaseBudgetOperations = budgetOperations<DatabaseRecord, Inputs, DatabaseBudgetOutputs>(
  {
    names: { kind: "DatabaseBudget", what: "database", idField: "databaseId", listedBy: "getDatabases()" },
    idIn: (inputs) => inputs.databaseId,
    inputsOf: (databaseId, budget) => ({ databaseId, budget }),
    list: (client) => client.databases.list(),
    find: (databases, id) => databases.find((d) => d.database_id === id),
    setBudget: (client, id, value) => client.databases.setBudget(id, value),
    // The location is `primary_region` (the service reports every database's `region` as "global").
    outputs: (d, budgetState) =>
      withoutUndefined({
        databaseId: d.database_id,
        databaseName: d.database_name,
        region: d.primary_region ?? d.region,
        state: d.state,
        ...budgetState,
      }),
    takeover: (databaseId) => ({ kind: "database budget", id: databaseId }),
  },
  Inputs,
);
