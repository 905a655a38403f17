/**
 * MessagingControls' composition, written once for both front doors: the TypeScript component
 * (messagingControls.ts, dynamic resources as children) and the plugin's Construct
 * (provider/plugin/construct.ts, the plugin's own `mgmt:index:FlowControlKey` and
 * `mgmt:index:MessagingQueue` as children). Only how a child is made differs; the checks of plain
 * values, the children's names and the component's outputs are these.
 *
 * The root SDK is taken through rootSdk.ts: the plugin loads it only when Construct is called.
 */
import type * as Pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { UserError } from "../userError";
import { flowControlKeyFields } from "./flowControlKey/schema";
import { region, token } from "./messagingFields";
import { withoutUndefined } from "../withoutUndefined";
import { queueFields } from "./messagingQueue/schema";
import { rootSdk } from "../rootSdk";

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

/** What the component reads from a key child, however it was made. */
export interface KeyChild {
  readonly key: Pulumi.Output<string>;
  readonly paused: Pulumi.Output<boolean>;
  readonly waitListSize: Pulumi.Output<number>;
  readonly lastResetTrigger: Pulumi.Output<string | number | undefined>;
  readonly pin: Pulumi.Output<KeyState["pin"]>;
}

/** What the component reads from a queue child, however it was made. */
export interface QueueChild {
  readonly queue: Pulumi.Output<string>;
  readonly parallelism: Pulumi.Output<number | undefined>;
  readonly paused: Pulumi.Output<boolean | undefined>;
  readonly lag: Pulumi.Output<number | undefined>;
  readonly lastResumeTrigger: Pulumi.Output<string | number | undefined>;
}

/** The component's arguments as either front door has them, before they are known to be well formed. */
export interface ControlsArgsShape {
  region?: unknown;
  token?: unknown;
  flowControlKeys?: unknown;
  queues?: unknown;
}

/** How a front door makes each child: `args` is the component's target (region, token) and the child's spec. */
export interface ChildMakers<T, KS, QS, K extends KeyChild, Q extends QueueChild> {
  key(childName: string, args: T & KS, opts: Pulumi.CustomResourceOptions): K;
  queue(childName: string, args: T & QS, opts: Pulumi.CustomResourceOptions): Q;
}

export interface Composed<K, Q> {
  keys: K[];
  queues: Q[];
  keyStates: Pulumi.Output<Record<string, KeyState>>;
  waitListSizes: Pulumi.Output<Record<string, number>>;
  queueStates: Pulumi.Output<Record<string, QueueState>>;
}

/** One child per key (`<name>-key-<key>`) and per queue (`<name>-queue-<queue>`), and the outputs read from them. */
export function composeControls<
  T extends object,
  KS extends { key: string },
  QS extends { name: string },
  K extends KeyChild,
  Q extends QueueChild,
>(
  parent: Pulumi.ComponentResource,
  name: string,
  target: T,
  specs: { flowControlKeys?: readonly KS[]; queues?: readonly QS[] },
  make: ChildMakers<T, KS, QS, K, Q>,
): Composed<K, Q> {
  const pulumi = rootSdk();
  const child = { parent };
  const keys = (specs.flowControlKeys ?? []).map((spec) =>
    make.key(`${name}-key-${spec.key}`, { ...target, ...spec }, child),
  );
  const queues = (specs.queues ?? []).map((spec) =>
    make.queue(`${name}-queue-${spec.name}`, { ...target, ...spec }, child),
  );
  const keyStates = pulumi
    .all(keys.map((k) => pulumi.all([k.key, k.paused, k.waitListSize, k.lastResetTrigger, k.pin])))
    .apply((rows) =>
      Object.fromEntries(
        rows.map(([key, paused, waitListSize, last, pin]) => [
          key,
          withoutUndefined({ paused, waitListSize, lastResetTrigger: last, pin }),
        ]),
      ),
    );
  const waitListSizes = keyStates.apply((states) =>
    Object.fromEntries(Object.entries(states).map(([k, s]) => [k, s.waitListSize])),
  );
  const queueStates = pulumi
    .all(queues.map((q) => pulumi.all([q.queue, q.parallelism, q.paused, q.lag, q.lastResumeTrigger])))
    .apply((rows) =>
      Object.fromEntries(
        rows.map(([queue, parallelism, paused, lag, last]) => [
          queue,
          withoutUndefined({ parallelism, paused, lag, lastResumeTrigger: last }),
        ]),
      ),
    );
  return { keys, queues, keyStates, waitListSizes, queueStates };
}

const plain = (v: unknown) => v !== undefined && !rootSdk().Output.isInstance(v) && !(v instanceof Promise);

/** A list argument's plain entries as records, each problem with its shape named; not plain: nothing to check. */
function entriesOf(field: string, value: unknown, problems: string[]): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push(
      `${field}: ${plain(value) ? "expected a list" : "must be known at preview (each entry names a child resource)"}`,
    );
    return [];
  }
  return value.flatMap((entry: unknown, i) => {
    if (entry && typeof entry === "object" && plain(entry)) return [Object.fromEntries(Object.entries(entry))];
    problems.push(`${field}[${i}]: expected an object known at preview`);
    return [];
  });
}

/**
 * Every problem with the plain values, each naming its field, in one error, before anything is
 * registered. A key's or queue's name must itself be plain: it names the child resource.
 */
export function validateArgs(name: string, args: ControlsArgsShape): void {
  const problems: string[] = [];
  const check = (path: string, schema: z.ZodType, value: unknown) => {
    if (!plain(value)) return;
    const result = schema.safeParse(value);
    if (!result.success)
      problems.push(...result.error.issues.map((i) => `${[path, ...i.path.map(String)].join(".")}: ${i.message}`));
  };
  const named = (path: string, value: unknown, seen: Set<unknown>, list: string) => {
    if (value === undefined) return void problems.push(`${path}: required`);
    if (!plain(value)) problems.push(`${path}: must be a plain string known at preview (it names the child resource)`);
    else if (seen.has(value)) problems.push(`${list}: "${String(value)}" is listed twice`);
    seen.add(value);
  };
  check("region", region, args.region);
  check("token", token, args.token);
  const seen = { flowControlKeys: new Set<unknown>(), queues: new Set<unknown>() };
  entriesOf("flowControlKeys", args.flowControlKeys, problems).forEach((k, i) => {
    for (const [field, schema] of Object.entries(flowControlKeyFields))
      check(`flowControlKeys[${i}].${field}`, schema, k[field]);
    named(`flowControlKeys[${i}].key`, k.key, seen.flowControlKeys, "flowControlKeys");
  });
  entriesOf("queues", args.queues, problems).forEach((q, i) => {
    for (const [field, schema] of Object.entries(queueFields)) check(`queues[${i}].${field}`, schema, q[field]);
    if (q.resumeTrigger !== undefined && (q.paused !== undefined || q.parallelism !== undefined)) {
      problems.push(
        `queues[${i}].resumeTrigger: only for a queue whose state this stack does not declare (no paused, no parallelism); with paused declared, set paused: false to resume`,
      );
    }
    named(`queues[${i}].name`, q.name, seen.queues, "queues");
  });
  if (problems.length > 0) throw new UserError(`MessagingControls "${name}": ${problems.join("; ")}`);
}
