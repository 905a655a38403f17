/** MessagingBudget, declared once (declare.ts): both doors, the schema and the docs derive from this. */
import { declareResource } from "../declare";
import { messagingBudgetOperations } from "./operations";
import { Inputs, MessagingBudgetOutputsSchema } from "./schema";

export const messagingBudget = declareResource({
  type: "MessagingBudget",
  module: "messagingBudget",
  description: "The monthly budget of a messaging account; destroy gives back the budget it had before.",
  inputs: Inputs,
  outputs: MessagingBudgetOutputsSchema,
  internalInputs: ["resourceName", "before"],
  apis: ["management"],
  operations: messagingBudgetOperations,
  takeover: (inputs) => ({ id: inputs.accountId, name: inputs.accountId }),
  typescript: { interfaces: [["resources/messagingBudget/messagingBudget", "MessagingBudgetArgs"]] },
});
