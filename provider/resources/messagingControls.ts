/**
 * MessagingControls: a messaging account's flow control keys and queues, declared in a stack.
 *
 * A thin composition: one child resource per key (`FlowControlKey`, flowControlKey/) and per
 * queue (`MessagingQueue`, messagingQueue/), so a preview lists exactly what will change.
 * Plain values are checked here before anything is registered; values only known later by each
 * child's `check`. The composition (checks, children's names, outputs) is controlsComposition.ts,
 * which the plugin's Construct shares with other children. The token defaults to `mgmt:messagingToken` and is always kept secret.
 */
import * as pulumi from "@pulumi/pulumi";
import { composeControls, validateArgs, type KeyState, type QueueState } from "./controlsComposition";
import { FlowControlKey, type FlowControlKeySpec } from "./flowControlKey/flowControlKey";
import type { ActionTargetArgs } from "./messagingFields";
import { MessagingQueue, type QueueSpec } from "./messagingQueue/messagingQueue";
import { checkProgramSettings } from "./dynamicDoor";

export type { KeyState, QueueState } from "./controlsComposition";

/** Descriptions: the inputs' schema (plugin/component.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface MessagingControlsArgs extends ActionTargetArgs {
  flowControlKeys?: FlowControlKeySpec[];
  queues?: QueueSpec[];
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
    const composed = composeControls(this, name, { region: args.region, token: args.token }, args, {
      key: (child, keyArgs, childOpts) => new FlowControlKey(child, keyArgs, childOpts),
      queue: (child, queueArgs, childOpts) => new MessagingQueue(child, queueArgs, childOpts),
    });
    this.keys = composed.keys;
    this.queues = composed.queues;
    this.keyStates = composed.keyStates;
    this.waitListSizes = composed.waitListSizes;
    this.queueStates = composed.queueStates;
    this.registerOutputs({
      waitListSizes: this.waitListSizes,
      keyStates: this.keyStates,
      queueStates: this.queueStates,
    });
  }
}
