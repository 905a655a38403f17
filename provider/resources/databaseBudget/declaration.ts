/** DatabaseBudget, declared once (declare.ts): both doors, the schema and the docs derive from this. */
import { declareResource } from "../declare";
import { databaseBudgetOperations } from "./operations";
import { DatabaseBudgetOutputsSchema, Inputs } from "./schema";

export const databaseBudget = declareResource({
  type: "DatabaseBudget",
  module: "databaseBudget",
  description: "The monthly budget of a database; destroy gives back the budget it had before.",
  inputs: Inputs,
  outputs: DatabaseBudgetOutputsSchema,
  internalInputs: ["resourceName", "before"],
  apis: ["management"],
  operations: databaseBudgetOperations,
  takeover: (inputs) => ({ id: inputs.databaseId, name: inputs.databaseId }),
  typescript: { interfaces: [["resources/databaseBudget/databaseBudget", "DatabaseBudgetArgs"]] },
});
