/** SearchIndex, declared once (declare.ts): both doors, the schema and the docs derive from this. */
import { declareResource } from "../declare";
import { APIS, searchIndexOperations } from "./operations";
import { Inputs, SearchIndexOutputs } from "./schema";

export const searchIndex = declareResource({
  type: "SearchIndex",
  module: "searchIndex",
  description:
    "A search index: created, renamed and re-planned in place, adopted with `adopt`, its tokens always secret and rotated with `tokenRotation`.",
  inputs: Inputs,
  outputs: SearchIndexOutputs,
  internalInputs: ["autoName"],
  apis: APIS,
  operations: searchIndexOperations,
  typescript: { interfaces: [["resources/searchIndex/searchIndex", "SearchIndexArgs"]] },
});
