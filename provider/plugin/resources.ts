/**
 * The resources the plugin serves, each with the zod schemas its `check` validates inputs with and
 * the schema of what it stores: the one table the package schema (schema.ts) is generated from.
 */
import type { z } from "zod";
import {
  Inputs as DatabaseBudgetInputs,
  DatabaseBudgetOutputsSchema,
  type DatabaseBudgetOutputs,
} from "../resources/databaseBudget/schema";
import { KeyInputs, KeyOutputsSchema, type KeyOutputs } from "../resources/flowControlKey/schema";
import {
  Inputs as MessagingAccountInputs,
  MessagingAccountOutputsSchema,
  type MessagingAccountOutputs,
} from "../resources/messagingAccount/schema";
import {
  Inputs as MessagingBudgetInputs,
  MessagingBudgetOutputsSchema,
  type MessagingBudgetOutputs,
} from "../resources/messagingBudget/schema";
import { QueueInputs, QueueOutputsSchema, type QueueOutputs } from "../resources/messagingQueue/schema";
import { Inputs as SearchIndexInputs, SearchIndexOutputs } from "../resources/searchIndex/schema";
import type { Same } from "./sameShape";

export interface PluginResource {
  /** The type name: the token is `mgmt:index:<name>`. */
  name: string;
  description: string;
  inputs: z.ZodObject;
  outputs: z.ZodObject;
  /**
   * Inputs the front door or `check` fills in, never a user: the generated name, the resource's
   * own name for conflict messages, the object as `check` found it (before.ts).
   */
  internalInputs: readonly string[];
}

export const PLUGIN_RESOURCES: readonly PluginResource[] = [
  {
    name: "SearchIndex",
    description:
      "A search index: created, renamed and re-planned in place, adopted with `adopt`, its tokens always secret and rotated with `tokenRotation`.",
    inputs: SearchIndexInputs,
    outputs: SearchIndexOutputs,
    internalInputs: ["autoName"],
  },
  {
    name: "MessagingAccount",
    description:
      "A messaging account that exists already (the service creates it): its plan, production pack and token rotation as desired state.",
    inputs: MessagingAccountInputs,
    outputs: MessagingAccountOutputsSchema,
    internalInputs: ["resourceName", "before"],
  },
  {
    name: "MessagingBudget",
    description: "The monthly budget of a messaging account; destroy gives back the budget it had before.",
    inputs: MessagingBudgetInputs,
    outputs: MessagingBudgetOutputsSchema,
    internalInputs: ["resourceName", "before"],
  },
  {
    name: "DatabaseBudget",
    description: "The monthly budget of a database; destroy gives back the budget it had before.",
    inputs: DatabaseBudgetInputs,
    outputs: DatabaseBudgetOutputsSchema,
    internalInputs: ["resourceName", "before"],
  },
  {
    name: "FlowControlKey",
    description: "A flow control key of a messaging account: its pause, pinned limits and rate resets.",
    inputs: KeyInputs,
    outputs: KeyOutputsSchema,
    internalInputs: ["before"],
  },
  {
    name: "MessagingQueue",
    description: "A queue of a messaging account: declared (created, parallelism) or only paused and resumed.",
    inputs: QueueInputs,
    outputs: QueueOutputsSchema,
    internalInputs: ["before"],
  },
];

/**
 * The stored-output interfaces the resources use and the output schemas above must agree, key for
 * key and type for type: tsc fails on the line of the one that drifted. (SearchIndexOutputs is
 * z.infer of its schema already; the messaging resources' interfaces are checked here so that
 * their schemas could be added without rewriting them.)
 */
export const OUTPUTS_AGREE: [
  Same<z.infer<typeof MessagingAccountOutputsSchema>, MessagingAccountOutputs>,
  Same<z.infer<typeof MessagingBudgetOutputsSchema>, MessagingBudgetOutputs>,
  Same<z.infer<typeof DatabaseBudgetOutputsSchema>, DatabaseBudgetOutputs>,
  Same<z.infer<typeof KeyOutputsSchema>, KeyOutputs>,
  Same<z.infer<typeof QueueOutputsSchema>, QueueOutputs>,
] = [true, true, true, true, true];
