/** MessagingQueue, declared once (declare.ts): both doors, the schema and the docs derive from this. */
import { declareResource } from "../declare";
import { APIS, messagingQueueOperations } from "./operations";
import { QueueInputs, QueueOutputsSchema, queueId } from "./schema";

export const messagingQueue = declareResource({
  type: "MessagingQueue",
  module: "messagingQueue",
  description: "A queue of a messaging account: declared (created, parallelism) or only paused and resumed.",
  inputs: QueueInputs,
  outputs: QueueOutputsSchema,
  internalInputs: ["before"],
  apis: APIS,
  operations: messagingQueueOperations,
  takeover: (inputs) => ({ id: queueId({ region: inputs.region, queue: inputs.queue }), name: inputs.queue }),
  typescript: {
    interfaces: [
      ["resources/messagingFields", "ActionTargetArgs"],
      ["resources/messagingQueue/messagingQueue", "QueueSpec"],
    ],
    renamed: { queue: "name" },
  },
});
