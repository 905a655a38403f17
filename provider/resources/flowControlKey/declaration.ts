/** FlowControlKey, declared once (declare.ts): both doors, the schema and the docs derive from this. */
import { declareResource } from "../declare";
import { APIS, flowControlKeyOperations } from "./operations";
import { KeyInputs, KeyOutputsSchema, keyId } from "./schema";

export const flowControlKey = declareResource({
  type: "FlowControlKey",
  module: "flowControlKey",
  description: "A flow control key of a messaging account: its pause, pinned limits and rate resets.",
  inputs: KeyInputs,
  outputs: KeyOutputsSchema,
  internalInputs: ["before"],
  apis: APIS,
  operations: flowControlKeyOperations,
  takeover: (inputs) => ({ id: keyId({ region: inputs.region, key: inputs.key }), name: inputs.key }),
  typescript: {
    interfaces: [
      ["resources/messagingFields", "ActionTargetArgs"],
      ["resources/flowControlKey/flowControlKey", "FlowControlKeySpec"],
    ],
  },
});
