/**
 * FlowControlKey: how one flow control key should be, converged by `up`.
 *
 * - `paused`: true pauses the key (endpoint 8); false lifts a pause (assumed resume).
 * - `pin`: limits pinned through the API (contract "Additions"), which win over the settings
 *   carried by messages. Pinning resets the key's rate counters, so a pin is sent only for parts
 *   whose value changed, and parts removed from `pin` are unpinned.
 * - `resetRateTrigger`: a value the key has not seen yet resets its rate once (endpoint 7).
 *
 * Refresh reads the key (endpoint 6). Where the service reports `isPaused`, `isPinned*` and the
 * limits, they are recorded, so the next preview shows the change back to the declared state;
 * where it reports only `flowControlKey` and `waitListSize`, only the wait list is refreshed.
 * Destroy lifts the pause and unpins what this stack pinned (a pin found in place is left).
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { MgmtClient } from "../api/client";
import { flowControlKey, type FlowControlInfo, type MessagingRegion, type PinQuery } from "../api/schemas";
import { apiClient } from "../runtime";
import { confirmGone } from "./identity";
import { act, flag, isNewTrigger, keyLabel, region, secretOrUndefined, statusOf, token, tokenIdentityOf, trigger, withoutUndefined, type ActionTargetArgs } from "./messagingCalls";
import { providerFor } from "./providerRef";
import { checkWithSettings } from "./validation";

const limit = (unit: string) => z.number({ error: "must be a number" }).int(`must be a whole number of ${unit}`).min(1, "must be at least 1");

/** Pinned limits. A rate without a period is per second (period 1), the service's default. */
export const PinSpec = z
  .strictObject(
    { parallelism: limit("messages").optional(), rate: limit("messages").optional(), period: limit("seconds").optional() },
    { error: (issue) => (issue.code === "unrecognized_keys" ? "may only have parallelism, rate and period" : "must be an object with parallelism, rate and/or period") },
  )
  .superRefine((pin, ctx) => {
    if (pin.parallelism === undefined && pin.rate === undefined) ctx.addIssue({ code: "custom", message: "give parallelism, rate (per period seconds) or both; leave pin out to pin nothing" });
    if (pin.period !== undefined && pin.rate === undefined) ctx.addIssue({ code: "custom", path: ["period"], message: "needs rate: period is the length in seconds of the window rate counts in" });
  })
  .transform((pin) => withoutUndefined({ ...pin, period: pin.rate === undefined ? undefined : (pin.period ?? 1) }));
export type PinSpec = z.input<typeof PinSpec>;
type Pin = z.output<typeof PinSpec>;

const KeyInputs = z.object({
  region,
  token,
  key: flowControlKey,
  paused: flag.default(false),
  resetRateTrigger: trigger,
  pin: PinSpec.optional(),
});
type KeyInputs = z.output<typeof KeyInputs>;

/** Which parts a pin covers: `rate` covers rate and period. */
type PinPart = "parallelism" | "rate";

interface KeyOutputs extends KeyInputs {
  waitListSize: number;
  /** Fingerprint of the token (so: the account) this resource acted with (identity.ts). */
  managedBy?: string;
  /** The last `resetRateTrigger` value acted on. */
  lastResetTrigger?: string | number;
  /** Parts this stack pinned, which destroy unpins. */
  pinnedByStack?: PinPart[];
}

function readKey(client: MgmtClient, inputs: { key: string; region: MessagingRegion; token?: string }): Promise<FlowControlInfo> {
  return act(keyLabel(inputs.key), "read the wait list of", inputs, () => client.getFlowControl(inputs.key, inputs.token));
}

/**
 * A key that answers 404 is gone only if the account that acted on it asks: a pause set with
 * another account's token is still in place, and swallowing the 404 would leave it there.
 */
function keyNotFound(err: unknown, client: MgmtClient, props: KeyOutputs, token: string | undefined): boolean {
  if (statusOf(err) !== 404) return false;
  const label = `${keyLabel(props.key)} in ${props.region}${props.paused ? " (paused by this stack)" : ""}`;
  confirmGone(label, props.managedBy, tokenIdentityOf(client, token), client.settings);
  return true;
}

/** The pin as the service reports it, over what was recorded; unreported parts stay as recorded. */
function observedPin(info: FlowControlInfo, recorded: Pin | undefined): Pin | undefined {
  const pin: Partial<Pin> = { ...recorded };
  if (info.isPinnedParallelism === false) delete pin.parallelism;
  if (info.isPinnedParallelism === true && info.parallelismMax !== undefined) pin.parallelism = info.parallelismMax;
  if (info.isPinnedRate === false) {
    delete pin.rate;
    delete pin.period;
  }
  if (info.isPinnedRate === true) {
    if (info.rateMax !== undefined) pin.rate = info.rateMax;
    if (info.ratePeriod !== undefined) pin.period = info.ratePeriod;
  }
  return Object.keys(pin).length > 0 ? (pin as Pin) : undefined;
}

/** What a pin request must carry to go from `current` to `wanted`: only the values that differ. */
function pinDelta(current: Pin | undefined, wanted: Pin | undefined): PinQuery {
  const delta: PinQuery = {};
  for (const part of ["parallelism", "rate", "period"] as const) {
    if (wanted?.[part] !== undefined && wanted[part] !== current?.[part]) delta[part] = wanted[part];
  }
  return delta;
}

/** Parts pinned in `current` that `wanted` no longer declares. */
function unpinDelta(current: Pin | undefined, wanted: Pin | undefined): { parallelism?: boolean; rate?: boolean } {
  return withoutUndefined({
    parallelism: current?.parallelism !== undefined && wanted?.parallelism === undefined ? true : undefined,
    rate: current?.rate !== undefined && wanted?.rate === undefined ? true : undefined,
  });
}

const partsOf = (q: object): PinPart[] => {
  const keys = Object.keys(q);
  return (["parallelism", "rate"] as const).filter((p) => keys.includes(p) || (p === "rate" && keys.includes("period")));
};
const samePin = (a: Pin | undefined, b: Pin | undefined) => Object.keys(pinDelta(a, b)).length === 0 && Object.keys(unpinDelta(a, b)).length === 0;

/**
 * Brings the key from `current` (what the service has) to `inputs`: pause or lift, pin or unpin
 * only what differs, then a rate reset on a new trigger. Returns the parts this stack now pins.
 */
async function converge(client: MgmtClient, inputs: KeyInputs, current: { paused?: boolean; pin?: Pin; pinnedByStack?: PinPart[]; lastResetTrigger?: string | number }, onError: (err: unknown) => never) {
  const label = keyLabel(inputs.key);
  const t = inputs.token;
  if (inputs.paused && current.paused !== true) await act(label, "pause", inputs, () => client.pauseFlowControl(inputs.region, inputs.key, t)).catch(onError);
  if (!inputs.paused && current.paused === true) await act(label, "lift the pause of", inputs, () => client.resumeFlowControl(inputs.region, inputs.key, t)).catch(onError);
  const unpin = unpinDelta(current.pin, inputs.pin);
  if (Object.keys(unpin).length > 0) await act(label, "unpin", inputs, () => client.unpinFlowControl(inputs.region, inputs.key, unpin, t)).catch(onError);
  const pin = pinDelta(current.pin, inputs.pin);
  if (Object.keys(pin).length > 0) await act(label, "pin", inputs, () => client.pinFlowControl(inputs.region, inputs.key, pin, t)).catch(onError);
  const declared = partsOf(inputs.pin ?? {});
  const pinnedByStack = [...new Set([...(current.pinnedByStack ?? []).filter((p) => declared.includes(p)), ...partsOf(pin)])];

  let lastResetTrigger = current.lastResetTrigger;
  if (isNewTrigger(inputs.resetRateTrigger, lastResetTrigger)) {
    await act(label, "reset the rate of", inputs, () => client.resetRate(inputs.region, inputs.key, t)).catch(onError);
    lastResetTrigger = inputs.resetRateTrigger;
  }
  return { pinnedByStack: pinnedByStack.length > 0 ? pinnedByStack : undefined, lastResetTrigger };
}

const rethrow = (err: unknown): never => {
  throw err;
};

export const flowControlKeyProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    return checkWithSettings(KeyInputs, news, ["messaging", "regional"], news.token);
  },

  // Compares the declared state with the recorded one, which refresh keeps up to date: no call.
  async diff(_id, olds: KeyOutputs, news: KeyInputs) {
    const replaces = (["key", "region"] as const).filter((k) => olds[k] !== news[k]);
    const changes =
      replaces.length > 0 ||
      olds.paused !== news.paused ||
      !samePin(olds.pin, news.pin) ||
      isNewTrigger(news.resetRateTrigger, olds.lastResetTrigger) ||
      olds.token !== news.token;
    return { changes, replaces, deleteBeforeReplace: true };
  },

  async create(news: KeyInputs) {
    const inputs = KeyInputs.parse(news);
    const client = apiClient();
    const info = await readKey(client, inputs);
    // What is already in place is not sent again: a pin found in place is not this stack's.
    const done = await converge(client, inputs, { paused: info.isPaused, pin: observedPin(info, undefined) }, rethrow);
    return {
      id: `${inputs.region}/${inputs.key}`,
      outs: withoutUndefined({ ...inputs, waitListSize: info.waitListSize, managedBy: tokenIdentityOf(client, inputs.token), ...done }),
    };
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
    const outs: KeyOutputs = { ...props, waitListSize: info.waitListSize, managedBy: tokenIdentityOf(client, props.token), pin: observedPin(info, props.pin) };
    if (info.isPaused !== undefined) outs.paused = info.isPaused;
    return { id, props: withoutUndefined(outs) };
  },

  async update(_id, olds: KeyOutputs, news: KeyInputs) {
    const inputs = KeyInputs.parse(news);
    const client = apiClient();
    const guard = (err: unknown): never => {
      keyNotFound(err, client, olds, inputs.token);
      throw err;
    };
    const done = await converge(client, inputs, olds, guard);
    return { outs: withoutUndefined({ ...inputs, waitListSize: olds.waitListSize, managedBy: tokenIdentityOf(client, inputs.token), ...done }) };
  },

  async delete(_id, props: KeyOutputs) {
    const client = apiClient();
    const label = keyLabel(props.key);
    const t = props.token;
    try {
      if (props.paused) await act(label, "lift the pause of", props, () => client.resumeFlowControl(props.region, props.key, t));
      const unpin = Object.fromEntries((props.pinnedByStack ?? []).map((p) => [p, true]));
      if (Object.keys(unpin).length > 0) await act(label, "unpin", props, () => client.unpinFlowControl(props.region, props.key, unpin, t));
    } catch (err) {
      // A key that no longer exists has nothing left to lift; one another account cannot see may.
      if (!keyNotFound(err, client, props, t)) throw err;
    }
  },
};

export interface FlowControlKeySpec {
  key: string;
  /** Pause delivery of the key's messages; false (default) lifts a pause. */
  paused?: pulumi.Input<boolean>;
  /** Change the value to reset the key's rate once (for example a date or an incident id). */
  resetRateTrigger?: pulumi.Input<string | number>;
  /**
   * Limits to pin, winning over those carried by messages: `parallelism` (messages at once) and
   * `rate` messages per `period` seconds (default 1). Removing a part unpins it.
   */
  pin?: pulumi.Input<{ parallelism?: number; rate?: number; period?: number }>;
}

export class FlowControlKey extends pulumi.dynamic.Resource {
  declare readonly key: pulumi.Output<string>;
  declare readonly paused: pulumi.Output<boolean>;
  declare readonly waitListSize: pulumi.Output<number>;
  declare readonly lastResetTrigger: pulumi.Output<string | number | undefined>;
  /** The pinned limits, as last applied or, after a refresh, as the service reports them. */
  declare readonly pin: pulumi.Output<{ parallelism?: number; rate?: number; period?: number } | undefined>;
  /** Fingerprint of the token (the account) this key is managed with; never the token. */
  declare readonly managedBy: pulumi.Output<string>;

  constructor(name: string, args: ActionTargetArgs & FlowControlKeySpec, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor("flowControlKey"),
      name,
      {
        waitListSize: undefined,
        lastResetTrigger: undefined,
        managedBy: undefined,
        region: args.region,
        token: secretOrUndefined(args.token),
        key: args.key,
        paused: args.paused ?? false,
        resetRateTrigger: args.resetRateTrigger,
        pin: args.pin,
      },
      { ...opts, additionalSecretOutputs: ["token"] },
      "mgmt",
      "FlowControlKey",
    );
  }
}

/** Schemas the component checks plain values with before registering anything. */
export const flowControlKeyFields = { key: flowControlKey, paused: flag, resetRateTrigger: trigger, pin: PinSpec };
