/** UrlGroup, declared once (declare.ts): both doors, the schema and the docs derive from this. */
import { declareResource } from "../declare";
import { APIS, urlGroupOperations } from "./operations";
import { UrlGroupInputs, UrlGroupOutputsSchema, urlGroupId } from "./schema";

export const urlGroup = declareResource({
  type: "UrlGroup",
  module: "urlGroup",
  description:
    "A URL group of a messaging account and the endpoints this stack declares in it: endpoints others add are left alone, and destroy removes only what the stack made.",
  inputs: UrlGroupInputs,
  outputs: UrlGroupOutputsSchema,
  internalInputs: [],
  apis: APIS,
  operations: urlGroupOperations,
  takeover: (inputs) => ({ id: urlGroupId({ region: inputs.region, group: inputs.group }), name: inputs.group }),
  typescript: {
    interfaces: [
      ["resources/messagingFields", "ActionTargetArgs"],
      ["resources/urlGroup/urlGroup", "UrlGroupSpec"],
    ],
    renamed: { group: "name" },
  },
});
