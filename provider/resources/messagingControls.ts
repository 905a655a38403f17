/**
 * MessagingControls: flow control and queue actions, reviewed and recorded in a stack.
 *
 * Each action target is a child dynamic resource, so a preview lists exactly which actions will
 * run:
 * - a flow control key (`FlowControlKey`): `paused: true` pauses it (endpoint 8); back to false,
 *   or removing the key, lifts the pause (assumed resume). A value of `resetRateTrigger` the key
 *   has not seen yet resets its rate (endpoint 7) once. Its wait list size (endpoint 6) is read
 *   on create and on refresh.
 * - a queue (`QueueResume`): a value of `resumeTrigger` it has not seen yet resumes the queue
 *   (endpoint 9) once.
 * Actions go to the regional messaging address of `region`; wait list sizes to the region-less
 * one. The token defaults to `mgmt:messagingToken` and is always kept secret.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { MgmtClient } from "../api/client";
import { ApiError } from "../api/errors";
import { MESSAGING_REGIONS, flowControlKey, queueName, type FlowControlInfo, type MessagingRegion } from "../api/schemas";
import { requireSetting } from "../config";
import { apiClient } from "../runtime";
import { confirmGone, tokenIdentity } from "./identity";
import { programClient } from "./programClient";
import { providerFor } from "./providerRef";
import { checkWith } from "./validation";

const trigger = z.union([z.string(), z.number()], { error: "must be a string or a number" }).optional();
const region = z.enum(MESSAGING_REGIONS);
const token = z.string({ error: "must be a string" }).min(1, "must not be empty").optional();

const KeyInputs = z.object({ region, token, key: flowControlKey, paused: z.boolean({ error: "must be true or false" }).default(false), resetRateTrigger: trigger });
const QueueInputs = z.object({ region, token, queue: queueName, resumeTrigger: trigger });
type KeyInputs = z.infer<typeof KeyInputs>;
type QueueInputs = z.infer<typeof QueueInputs>;

interface KeyOutputs extends KeyInputs {
  waitListSize: number;
  /** Fingerprint of the token (so: the account) this resource acted with (identity.ts). */
  managedBy?: string;
  /** The last `resetRateTrigger` value acted on. */
  lastResetTrigger?: string | number;
}
interface QueueOutputs extends QueueInputs {
  /** The last `resumeTrigger` value acted on. */
  lastResumeTrigger?: string | number;
}

type Action = "read the wait list of" | "reset the rate of" | "pause" | "lift the pause of" | "resume";

/** A failed action: which key or queue, which action, and what the service answered. */
class ActionError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

async function act<T>(what: string, action: Action, inputs: { region: MessagingRegion }, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const answer = err.status === undefined ? err.message : `${err.status}: ${err.serviceMessage ?? "no message"}`;
    const hint = err.status === 401 ? " (is the token for an account in this region?)" : "";
    throw new ActionError(`could not ${action} ${what} in ${inputs.region}: the service answered ${answer}${hint}`, err.status);
  }
}

const keyLabel = (key: string) => `flow control key "${key}"`;
const queueLabel = (queue: string) => `queue "${queue}"`;

function readWaitList(client: MgmtClient, inputs: KeyInputs): Promise<FlowControlInfo> {
  return act(keyLabel(inputs.key), "read the wait list of", inputs, () => client.getFlowControl(inputs.key, inputs.token));
}

/** A trigger value this resource has not acted on yet. */
const isNewTrigger = (value: string | number | undefined, last: string | number | undefined) => value !== undefined && value !== last;

function keyOutputs(inputs: KeyInputs, waitListSize: number, lastResetTrigger: string | number | undefined, managedBy: string): KeyOutputs {
  return withoutUndefined({ ...inputs, waitListSize, lastResetTrigger, managedBy });
}

/** The identity of the token a call will use: the resource's own, else mgmt:messagingToken. */
function tokenIdentityOf(client: MgmtClient, token: string | undefined): string {
  return tokenIdentity(token ?? requireSetting(client.settings, "messagingToken", "authenticate to the messaging API"));
}

/**
 * A key that answers 404 is gone only if the account that acted on it asks: a pause set with
 * another account's token is still in place, and swallowing the 404 would leave it there.
 */
function keyNotFound(err: unknown, client: MgmtClient, props: KeyOutputs, token: string | undefined): boolean {
  const status = err instanceof ActionError ? err.status : err instanceof ApiError ? err.status : undefined;
  if (status !== 404) return false;
  const label = `${keyLabel(props.key)} in ${props.region}${props.paused ? " (paused by this stack)" : ""}`;
  confirmGone(label, props.managedBy, tokenIdentityOf(client, token), client.settings);
  return true;
}

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export const flowControlKeyProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    return checkWith(KeyInputs, news);
  },

  async diff(_id, olds: KeyOutputs, news: KeyInputs) {
    const replaces = (["key", "region"] as const).filter((k) => olds[k] !== news[k]);
    const changes =
      replaces.length > 0 || olds.paused !== news.paused || isNewTrigger(news.resetRateTrigger, olds.lastResetTrigger) || olds.token !== news.token;
    return { changes, replaces, deleteBeforeReplace: true };
  },

  async create(news: KeyInputs) {
    const inputs = KeyInputs.parse(news);
    const client = apiClient();
    const info = await readWaitList(client, inputs);
    if (inputs.paused) await act(keyLabel(inputs.key), "pause", inputs, () => client.pauseFlowControl(inputs.region, inputs.key, inputs.token));
    if (inputs.resetRateTrigger !== undefined) {
      await act(keyLabel(inputs.key), "reset the rate of", inputs, () => client.resetRate(inputs.region, inputs.key, inputs.token));
    }
    return { id: `${inputs.region}/${inputs.key}`, outs: keyOutputs(inputs, info.waitListSize, inputs.resetRateTrigger, tokenIdentityOf(client, inputs.token)) };
  },

  async read(id, props: KeyOutputs) {
    const client = apiClient();
    let info: FlowControlInfo;
    try {
      info = await client.getFlowControl(props.key, props.token);
    } catch (err) {
      if (keyNotFound(err, client, props, props.token)) return {};
      throw err;
    }
    return { id, props: { ...props, waitListSize: info.waitListSize, managedBy: tokenIdentityOf(client, props.token) } };
  },

  async update(_id, olds: KeyOutputs, news: KeyInputs) {
    const inputs = KeyInputs.parse(news);
    const client = apiClient();
    const label = keyLabel(inputs.key);
    const guard = (err: unknown): never => {
      keyNotFound(err, client, olds, inputs.token);
      throw err;
    };
    if (inputs.paused && !olds.paused) await act(label, "pause", inputs, () => client.pauseFlowControl(inputs.region, inputs.key, inputs.token)).catch(guard);
    if (!inputs.paused && olds.paused) await act(label, "lift the pause of", inputs, () => client.resumeFlowControl(inputs.region, inputs.key, inputs.token)).catch(guard);
    let last = olds.lastResetTrigger;
    if (isNewTrigger(inputs.resetRateTrigger, last)) {
      await act(label, "reset the rate of", inputs, () => client.resetRate(inputs.region, inputs.key, inputs.token)).catch(guard);
      last = inputs.resetRateTrigger;
    }
    return { outs: keyOutputs(inputs, olds.waitListSize, last, tokenIdentityOf(client, inputs.token)) };
  },

  async delete(_id, props: KeyOutputs) {
    if (!props.paused) return;
    const client = apiClient();
    try {
      await act(keyLabel(props.key), "lift the pause of", props, () => client.resumeFlowControl(props.region, props.key, props.token));
    } catch (err) {
      // A key that no longer exists has no pause left to lift; one another account cannot see may.
      if (!keyNotFound(err, client, props, props.token)) throw err;
    }
  },
};

export const queueResumeProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    return checkWith(QueueInputs, news);
  },

  async diff(_id, olds: QueueOutputs, news: QueueInputs) {
    const replaces = (["queue", "region"] as const).filter((k) => olds[k] !== news[k]);
    return { changes: replaces.length > 0 || isNewTrigger(news.resumeTrigger, olds.lastResumeTrigger) || olds.token !== news.token, replaces, deleteBeforeReplace: true };
  },

  async create(news: QueueInputs) {
    const inputs = QueueInputs.parse(news);
    if (inputs.resumeTrigger !== undefined) {
      await act(queueLabel(inputs.queue), "resume", inputs, () => apiClient().resumeQueue(inputs.region, inputs.queue, inputs.token));
    }
    return { id: `${inputs.region}/${inputs.queue}`, outs: withoutUndefined({ ...inputs, lastResumeTrigger: inputs.resumeTrigger }) };
  },

  // The API has no way to read a queue: what we last did is all there is to know.
  async read(id, props: QueueOutputs) {
    return { id, props };
  },

  async update(_id, olds: QueueOutputs, news: QueueInputs) {
    const inputs = QueueInputs.parse(news);
    let last = olds.lastResumeTrigger;
    if (isNewTrigger(inputs.resumeTrigger, last)) {
      await act(queueLabel(inputs.queue), "resume", inputs, () => apiClient().resumeQueue(inputs.region, inputs.queue, inputs.token));
      last = inputs.resumeTrigger;
    }
    return { outs: withoutUndefined({ ...inputs, lastResumeTrigger: last }) };
  },

  async delete() {
    // Resuming is not undone: removing a queue from the stack leaves it delivering.
  },
};

// -- resources ---------------------------------------------------------------------------------

interface ActionTargetArgs {
  region: pulumi.Input<MessagingRegion>;
  token?: pulumi.Input<string>;
}

export class FlowControlKey extends pulumi.dynamic.Resource {
  declare readonly key: pulumi.Output<string>;
  declare readonly paused: pulumi.Output<boolean>;
  declare readonly waitListSize: pulumi.Output<number>;
  declare readonly lastResetTrigger: pulumi.Output<string | number | undefined>;
  /** Fingerprint of the token (the account) this key is managed with; never the token. */
  declare readonly managedBy: pulumi.Output<string>;

  constructor(name: string, args: ActionTargetArgs & FlowControlKeySpec, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor("flowControlKey"),
      name,
      { waitListSize: undefined, lastResetTrigger: undefined, managedBy: undefined, region: args.region, token: secretOrUndefined(args.token), key: args.key, paused: args.paused ?? false, resetRateTrigger: args.resetRateTrigger },
      { ...opts, additionalSecretOutputs: ["token"] },
      "mgmt",
      "FlowControlKey",
    );
  }
}

export class QueueResume extends pulumi.dynamic.Resource {
  declare readonly queue: pulumi.Output<string>;
  declare readonly lastResumeTrigger: pulumi.Output<string | number | undefined>;

  constructor(name: string, args: ActionTargetArgs & QueueSpec, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor("queueResume"),
      name,
      { lastResumeTrigger: undefined, region: args.region, token: secretOrUndefined(args.token), queue: args.name, resumeTrigger: args.resumeTrigger },
      { ...opts, additionalSecretOutputs: ["token"] },
      "mgmt",
      "QueueResume",
    );
  }
}

function secretOrUndefined(value: pulumi.Input<string> | undefined): pulumi.Input<string> | undefined {
  return value === undefined ? undefined : pulumi.secret(value);
}

export interface FlowControlKeySpec {
  key: string;
  /** Pause delivery of the key's messages; false (default) lifts a pause this stack set. */
  paused?: pulumi.Input<boolean>;
  /** Change the value to reset the key's rate once (for example a date or an incident id). */
  resetRateTrigger?: pulumi.Input<string | number>;
}

export interface QueueSpec {
  name: string;
  /** Change the value to resume the queue once. */
  resumeTrigger?: pulumi.Input<string | number>;
}

export interface MessagingControlsArgs extends ActionTargetArgs {
  flowControlKeys?: FlowControlKeySpec[];
  queues?: QueueSpec[];
}

export interface KeyState {
  paused: boolean;
  waitListSize: number;
  lastResetTrigger?: string | number;
}

export class MessagingControls extends pulumi.ComponentResource {
  /** Key to wait list size, read on create and on refresh. */
  readonly waitListSizes: pulumi.Output<Record<string, number>>;
  /** The state each key was left in. */
  readonly keyStates: pulumi.Output<Record<string, KeyState>>;
  /** The last resume trigger acted on, per queue. */
  readonly queueStates: pulumi.Output<Record<string, { lastResumeTrigger?: string | number }>>;
  readonly keys: FlowControlKey[];
  readonly queues: QueueResume[];

  constructor(name: string, args: MessagingControlsArgs, opts?: pulumi.ComponentResourceOptions) {
    // Plain values are checked before anything is registered, so a mistake leaves no trace in the
    // stack; values only known later are checked by each child's `check`.
    validateArgs(name, args);
    super("mgmt:index:MessagingControls", name, {}, opts);
    const target = { region: args.region, token: args.token };
    const child = { parent: this };
    this.keys = (args.flowControlKeys ?? []).map((spec) => new FlowControlKey(`${name}-key-${spec.key}`, { ...target, ...spec }, child));
    this.queues = (args.queues ?? []).map((spec) => new QueueResume(`${name}-queue-${spec.name}`, { ...target, ...spec }, child));

    this.keyStates = pulumi
      .all(this.keys.map((k) => pulumi.all([k.key, k.paused, k.waitListSize, k.lastResetTrigger])))
      .apply((rows) => Object.fromEntries(rows.map(([key, paused, waitListSize, last]) => [key, withoutUndefined({ paused, waitListSize, lastResetTrigger: last })])));
    this.waitListSizes = this.keyStates.apply((states) => Object.fromEntries(Object.entries(states).map(([k, s]) => [k, s.waitListSize])));
    this.queueStates = pulumi
      .all(this.queues.map((q) => pulumi.all([q.queue, q.lastResumeTrigger])))
      .apply((rows) => Object.fromEntries(rows.map(([queue, last]) => [queue, withoutUndefined({ lastResumeTrigger: last })])));
    this.registerOutputs({ waitListSizes: this.waitListSizes, keyStates: this.keyStates, queueStates: this.queueStates });
  }
}

const plain = (v: unknown) => v !== undefined && !pulumi.Output.isInstance(v) && !(v instanceof Promise);

function validateArgs(name: string, args: MessagingControlsArgs): void {
  const problems: string[] = [];
  const check = (path: string, schema: z.ZodType, value: unknown) => {
    if (!plain(value)) return;
    const result = schema.safeParse(value);
    if (!result.success) problems.push(...result.error.issues.map((i) => `${path}: ${i.message}`));
  };
  check("region", region, args.region);
  check("token", z.string({ error: "must be a string" }).min(1, "must not be empty"), args.token);
  const seen = { flowControlKeys: new Set<string>(), queues: new Set<string>() };
  (args.flowControlKeys ?? []).forEach((k, i) => {
    check(`flowControlKeys[${i}].key`, flowControlKey, k.key);
    check(`flowControlKeys[${i}].paused`, KeyInputs.shape.paused, k.paused);
    check(`flowControlKeys[${i}].resetRateTrigger`, trigger, k.resetRateTrigger);
    if (seen.flowControlKeys.has(k.key)) problems.push(`flowControlKeys: "${k.key}" is listed twice`);
    seen.flowControlKeys.add(k.key);
  });
  (args.queues ?? []).forEach((q, i) => {
    check(`queues[${i}].name`, queueName, q.name);
    check(`queues[${i}].resumeTrigger`, trigger, q.resumeTrigger);
    if (seen.queues.has(q.name)) problems.push(`queues: "${q.name}" is listed twice`);
    seen.queues.add(q.name);
  });
  if (problems.length > 0) throw new Error(`MessagingControls "${name}": ${problems.join("; ")}`);
}

// -- functions ---------------------------------------------------------------------------------

/** The wait list of one key, from the region-less messaging address. */
export async function getFlowControl(args: { key: string; token?: string }): Promise<FlowControlInfo> {
  const key = flowControlKey.safeParse(args.key);
  if (!key.success) throw new Error(`key: ${key.error.issues.map((i) => i.message).join("; ")}`);
  return programClient().getFlowControl(args.key, args.token);
}

export function getFlowControlOutput(args: { key: pulumi.Input<string>; token?: pulumi.Input<string> }): pulumi.Output<FlowControlInfo> {
  return pulumi.all([args.key, args.token]).apply(([key, token]) => getFlowControl({ key, token }));
}
