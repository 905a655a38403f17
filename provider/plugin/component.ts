/**
 * MessagingControls as the plugin's component: its arguments are made of the field schemas the
 * component checks plain values with (flowControlKeyFields, queueFields), its outputs are what it
 * registers (waitListSizes, keyStates, queueStates).
 */
import { z } from "zod";
import { flowControlKeyFields } from "../resources/flowControlKey/schema";
import { region, token } from "../resources/messagingFields";
import { queueFields } from "../resources/messagingQueue/schema";

import type { TypeScriptInterface } from "../resources/declare";

export const CONTROLS_NAME = "MessagingControls";
export const CONTROLS_DESCRIPTION =
  "A messaging account's flow control keys and queues: one FlowControlKey per key and one MessagingQueue per queue, as children.";

/** Every field but the key's (or queue's) name may be left out: then the stack does not manage it. */
const KeySpec = z.object(flowControlKeyFields).partial().required({ key: true });
const QueueSpec = z.object(queueFields).partial().required({ name: true });

export const ControlsInputs = z.object({
  region,
  token: token.meta({ ...token.meta(), secret: true }),
  flowControlKeys: z
    .array(KeySpec)
    .optional()
    .meta({ description: "The keys to manage, each a `FlowControlKey` child; a field left out is not this stack's." }),
  queues: z.array(QueueSpec).optional().meta({
    description: "The queues to manage, each a `MessagingQueue` child; a field left out is not this stack's.",
  }),
});

const pin = z.object({
  parallelism: z.number().optional(),
  rate: z.number().optional(),
  period: z.number().optional(),
});
export const ControlsOutputs = z.object({
  waitListSizes: z
    .record(z.string(), z.number())
    .meta({ description: "Key to wait list size, read on create and on refresh." }),
  keyStates: z
    .record(
      z.string(),
      z.object({
        paused: z.boolean(),
        waitListSize: z.number(),
        lastResetTrigger: z.union([z.string(), z.number()]).optional(),
        pin: pin.optional(),
      }),
    )
    .meta({ description: "The state each key was left in (or, after a refresh, found in)." }),
  queueStates: z
    .record(
      z.string(),
      z.object({
        parallelism: z.number().optional(),
        paused: z.boolean().optional(),
        lag: z.number().optional(),
        lastResumeTrigger: z.union([z.string(), z.number()]).optional(),
      }),
    )
    .meta({ description: "The state each queue was left in (or found in), and the last resume trigger acted on." }),
});

/** The component as scripts/argDocs.ts reads it: where TypeScript declares its inputs. */
export const messagingControls = {
  type: CONTROLS_NAME,
  inputs: ControlsInputs,
  typescript: {
    interfaces: [
      ["resources/messagingFields", "ActionTargetArgs"],
      ["resources/messagingControls", "MessagingControlsArgs"],
    ] as const satisfies readonly TypeScriptInterface[],
  },
};
