/** MessagingSchedule, declared once (declare.ts): both doors, the schema and the docs derive from this. */
import { declareResource } from "../declare";
import { APIS, messagingScheduleOperations } from "./operations";
import { ScheduleInputs, ScheduleOutputsSchema, scheduleResourceId } from "./schema";

export const messagingSchedule = declareResource({
  type: "MessagingSchedule",
  module: "messagingSchedule",
  description:
    "A schedule of a messaging account: a message sent to a URL or a URL group on a cron. Every change is made in place, on the same schedule.",
  inputs: ScheduleInputs,
  outputs: ScheduleOutputsSchema,
  internalInputs: ["scheduleId"],
  apis: APIS,
  operations: messagingScheduleOperations,
  // A create a killed run left pending is found by the id it sent.
  takeover: (inputs) => ({
    id: scheduleResourceId({ region: inputs.region, scheduleId: inputs.scheduleId }),
    name: inputs.scheduleId,
  }),
  typescript: {
    interfaces: [
      ["resources/messagingFields", "ActionTargetArgs"],
      ["resources/messagingSchedule/messagingSchedule", "ScheduleSpec"],
    ],
  },
});
