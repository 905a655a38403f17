/** MessagingSigningKeys, declared once (declare.ts): both doors, the schema and the docs derive from this. */
import { declareResource } from "../declare";
import { APIS, messagingSigningKeysOperations } from "./operations";
import { Inputs, SigningKeysOutputsSchema, signingKeysId } from "./schema";

export const messagingSigningKeys = declareResource({
  type: "MessagingSigningKeys",
  module: "messagingSigningKeys",
  description:
    "A messaging account's signing keys (`current` and `next`, secrets), rotated once per new `rotation` value; the service makes them with the account, and destroy leaves them.",
  inputs: Inputs,
  outputs: SigningKeysOutputsSchema,
  internalInputs: [],
  apis: APIS,
  operations: messagingSigningKeysOperations,
  takeover: (inputs) => ({ id: signingKeysId({ region: inputs.region }), name: "signing keys" }),
  typescript: {
    interfaces: [
      ["resources/messagingFields", "ActionTargetArgs"],
      ["resources/messagingSigningKeys/messagingSigningKeys", "SigningKeysSpec"],
    ],
  },
});
