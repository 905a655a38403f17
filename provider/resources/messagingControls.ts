/**
 * MessagingControls: a messaging account's flow control keys and queues, declared in a stack.
 *
 * A thin composition: one child resource per key (`FlowControlKey`, flowControlKey/) and per
 * queue (`MessagingQueue`, messagingQueue/), so a preview lists exactly what will change.
 * Plain values are checked here before anything is registered; values only known later by each
 * child's `check`. The token defaults to `mgmt:messagingToken` and is always kept secret.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { FlowControlKey, type FlowControlKeySpec } from "./flowControlKey/flowControlKey";
import { flowControlKeyFields } from "./flowControlKey/schema";
import { region, token, withoutUndefined, type ActionTargetArgs } from "./messagingCalls";
import { MessagingQueue, type QueueSpec } from "./messagingQueue/messagingQueue";
import { queueFields } from "./messagingQueue/schema";
import { checkProgramSettings } from "./serializedProvider";
import { UserError } from "../userError";

export interface MessagingControlsArgs extends ActionTargetArgs {
  /** The keys to manage, each a `FlowControlKey` child; a field left out is not this stack's. */
  flowControlKeys?: FlowControlKeySpec[];
  /** The queues to manage, each a `MessagingQueue` child; a field left out is not this stack's. */
  queues?: QueueSpec[];
}

export interface KeyState {
  paused: boolean;
  waitListSize: number;
  lastResetTrigger?: string | number;
  pin?: { parallelism?: number; rate?: number; period?: number };
}

export interface QueueState {
  parallelism?: number;
  paused?: boolean;
  lag?: number;
  lastResumeTrigger?: string | number;
}

export class MessagingControls extends pulumi.ComponentResource {
  /** Key to wait list size, read on create and on refresh. */
  readonly waitListSizes: pulumi.Output<Record<string, number>>;
  /** The state each key was left in (or, after a refresh, found in). */
  readonly keyStates: pulumi.Output<Record<string, KeyState>>;
  /** The state each queue was left in (or found in), and the last resume trigger acted on. */
  readonly queueStates: pulumi.Output<Record<string, QueueState>>;
  readonly keys: FlowControlKey[];
  readonly queues: MessagingQueue[];

  constructor(name: string, args: MessagingControlsArgs, opts?: pulumi.ComponentResourceOptions) {
    validateArgs(name, args);
    // Before the component is registered: a malformed or missing setting then leaves nothing half-declared.
    checkProgramSettings(
      [
        ...(args.flowControlKeys?.length ? ["flowControlKey" as const] : []),
        ...(args.queues?.length ? ["messagingQueue" as const] : []),
      ],
      args.token,
    );
    super("mgmt:index:MessagingControls", name, {}, opts);
    const target = { region: args.region, token: args.token };
    const child = { parent: this };
    this.keys = (args.flowControlKeys ?? []).map(
      (spec) => new FlowControlKey(`${name}-key-${spec.key}`, { ...target, ...spec }, child),
    );
    this.queues = (args.queues ?? []).map(
      (spec) => new MessagingQueue(`${name}-queue-${spec.name}`, { ...target, ...spec }, child),
    );

    this.keyStates = pulumi
      .all(this.keys.map((k) => pulumi.all([k.key, k.paused, k.waitListSize, k.lastResetTrigger, k.pin])))
      .apply((rows) =>
        Object.fromEntries(
          rows.map(([key, paused, waitListSize, last, pin]) => [
            key,
            withoutUndefined({ paused, waitListSize, lastResetTrigger: last, pin }),
          ]),
        ),
      );
    this.waitListSizes = this.keyStates.apply((states) =>
      Object.fromEntries(Object.entries(states).map(([k, s]) => [k, s.waitListSize])),
    );
    this.queueStates = pulumi
      .all(this.queues.map((q) => pulumi.all([q.queue, q.parallelism, q.paused, q.lag, q.lastResumeTrigger])))
      .apply((rows) =>
        Object.fromEntries(
          rows.map(([queue, parallelism, paused, lag, last]) => [
            queue,
            withoutUndefined({ parallelism, paused, lag, lastResumeTrigger: last }),
          ]),
        ),
      );
    this.registerOutputs({
      waitListSizes: this.waitListSizes,
      keyStates: this.keyStates,
      queueStates: this.queueStates,
    });
  }
}

const plain = (v: unknown) => v !== undefined && !pulumi.Output.isInstance(v) && !(v instanceof Promise);

/** Every problem with the plain values, each naming its field, in one error, before anything is registered. */
function validateArgs(name: string, args: MessagingControlsArgs): void {
  const problems: string[] = [];
  const check = (path: string, schema: z.ZodType, value: unknown) => {
    if (!plain(value)) return;
    const result = schema.safeParse(value);
    if (!result.success)
      problems.push(...result.error.issues.map((i) => `${[path, ...i.path.map(String)].join(".")}: ${i.message}`));
  };
  check("region", region, args.region);
  check("token", token, args.token);
  const seen = { flowControlKeys: new Set<string>(), queues: new Set<string>() };
  (args.flowControlKeys ?? []).forEach((k, i) => {
    for (const [field, schema] of Object.entries(flowControlKeyFields))
      check(`flowControlKeys[${i}].${field}`, schema, k[field as keyof FlowControlKeySpec]);
    if (seen.flowControlKeys.has(k.key)) problems.push(`flowControlKeys: "${k.key}" is listed twice`);
    seen.flowControlKeys.add(k.key);
  });
  (args.queues ?? []).forEach((q, i) => {
    for (const [field, schema] of Object.entries(queueFields))
      check(`queues[${i}].${field}`, schema, q[field as keyof QueueSpec]);
    if (q.resumeTrigger !== undefined && (q.paused !== undefined || q.parallelism !== undefined)) {
      problems.push(
        `queues[${i}].resumeTrigger: only for a queue whose state this stack does not declare (no paused, no parallelism); with paused declared, set paused: false to resume`,
      );
    }
    if (seen.queues.has(q.name)) problems.push(`queues: "${q.name}" is listed twice`);
    seen.queues.add(q.name);
  });
  if (problems.length > 0) throw new UserError(`MessagingControls "${name}": ${problems.join("; ")}`);
}
