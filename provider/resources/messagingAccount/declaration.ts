/** MessagingAccount, declared once (declare.ts): both doors, the schema and the docs derive from this. */
import { declareResource } from "../declare";
import { APIS, messagingAccountOperations } from "./operations";
import { Inputs, MessagingAccountOutputsSchema } from "./schema";

export const messagingAccount = declareResource({
  type: "MessagingAccount",
  module: "messagingAccount",
  description:
    "A messaging account that exists already (the service creates it): its plan, production pack and token rotation as desired state.",
  inputs: Inputs,
  outputs: MessagingAccountOutputsSchema,
  internalInputs: ["resourceName", "before"],
  apis: APIS,
  operations: messagingAccountOperations,
  takeover: (inputs) => ({ id: inputs.accountId, name: inputs.accountId }),
  typescript: { interfaces: [["resources/messagingAccount/messagingAccount", "MessagingAccountArgs"]] },
});
