/**
 * What the MessagingQueue provider receives (after `check`) and what the stack stores; the
 * schemas MessagingControls checks plain values with.
 */
import { z } from "zod";
import type { Same } from "../../sameShape";
import { queueName, queueParallelism } from "../../api/schemas";
import { flag, identityOutputs, region, token, trigger } from "../messagingFields";
import { type PauseProvenance } from "../pauseProvenance";

/** The queue as `check` found it before this stack acted (before.ts). */
export const QueueBefore = z.object({
  exists: z.boolean(),
  parallelism: z.number().optional(),
  paused: z.boolean().optional(),
  lag: z.number().optional(),
});
export type QueueBefore = z.output<typeof QueueBefore>;

/** A queue's own inputs (beside region and token), as MessagingControls takes them; MessagingQueue names `name` `queue`. */
export const queueFields = {
  name: queueName.meta({ description: "The queue's name." }),
  parallelism: queueParallelism.meta({
    description:
      "Declares the queue: created (or taken into this state) with this many messages delivered at once, deleted on destroy if this stack created it. Leave out for a queue publishers create.",
  }),
  paused: flag.meta({ description: "Pause (true) or run (false) the queue; a declared queue runs by default." }),
  resumeTrigger: trigger.meta({
    description: "Change the value to resume the queue once (only when `paused` and `parallelism` are left out).",
  }),
};

export const QueueInputs = z.object({
  region,
  token,
  queue: queueFields.name,
  parallelism: queueFields.parallelism.optional(),
  paused: queueFields.paused.optional(),
  resumeTrigger: queueFields.resumeTrigger,
  before: QueueBefore.optional(),
});
export type QueueInputs = z.output<typeof QueueInputs>;

/** For a queue the stack does not declare, what it changed of the pause (PauseProvenance). */
export interface QueueOutputs extends Omit<QueueInputs, "before">, PauseProvenance {
  /** Only in a resource recovery imported (before.ts), until its refresh. */
  before?: QueueBefore;
  /** The account this queue is managed on, or the fingerprint of its token where the account cannot be told (tokenAccount.ts). */
  managedBy?: string;
  /** Fingerprint of the token it last acted with: the same one later is the same account, with no call (tokenAccount.ts). */
  tokenFingerprint?: string;
  /** The last `resumeTrigger` value acted on. */
  lastResumeTrigger?: string | number;
  /** True when this stack created the queue: only then does destroy delete it. */
  created?: boolean;
  /** Messages waiting, as last read. */
  lag?: number;
  /**
   * A declared queue that existed before this stack changed its settings: how it was found, what
   * destroy (or removing `parallelism`) puts back while the stack's settings are still in place.
   */
  found?: QueueSettings;
}

export interface QueueSettings {
  parallelism: number;
  paused: boolean;
}

/** The resource's id: where the queue is. Recovery (automation/recovery.ts) gives an imported one the same. */
export const queueId = (i: { region: string; queue: string }) => `${i.region}/${i.queue}`;

/**
 * QueueOutputs as a schema, for the plugin schema (provider/plugin/schema.ts checks they agree).
 * `secret` marks what the resource keeps secret (its additionalSecretOutputs).
 */
export const QueueOutputsSchema = z.object({
  region: region.meta({ description: "The region of the messaging account." }),
  token: z.string().optional().meta({
    description: "The messaging token the queue is managed with (default: mgmt:messagingToken).",
    secret: true,
  }),
  queue: z.string().meta({ description: "The queue's name." }),
  parallelism: z.number().optional(),
  paused: z.boolean().optional(),
  resumeTrigger: z.union([z.string(), z.number()]).optional(),
  before: QueueBefore.optional(),
  ...identityOutputs,
  lastResumeTrigger: z.union([z.string(), z.number()]).optional(),
  created: z
    .boolean()
    .optional()
    .meta({ description: "True when this stack created the queue: only then does destroy delete it." }),
  lag: z.number().optional().meta({ description: "Messages waiting, as last read." }),
  found: z.object({ parallelism: z.number(), paused: z.boolean() }).optional(),
  pausedByStack: z.boolean().optional(),
  resumedByStack: z.boolean().optional(),
});

/** The stored-output interface and its schema agree, key for key and type for type: tsc fails here when one drifts. */
export const OUTPUTS_AGREE: Same<z.infer<typeof QueueOutputsSchema>, QueueOutputs> = true;
