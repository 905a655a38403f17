/**
 * What the flow control key and queue resources share: their common inputs, the labelled
 * error of a failed call, and which token (so: which account) a call acts with.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { MgmtClient } from "../api/client";
import { ApiError, UnauthorizedError } from "../api/errors";
import { messagingRegion, type MessagingRegion } from "../api/schemas";
import { requireSetting } from "../config";
import { regionFailureOf } from "./before";
import { tokenIdentity } from "./identity";

/** Who a key's or queue's outputs say acts on it (tokenAccount.ts): its account, and the token last used. */
export const identityOutputs = {
  managedBy: z.string().optional().meta({
    description:
      "The account that manages it (account:<id>@<region>), or with no management credentials the fingerprint of the token it was managed with.",
  }),
  tokenFingerprint: z.string().optional().meta({
    description:
      "Fingerprint of the token last acted with (a rotation elsewhere shows as a change of it, not of managedBy).",
  }),
};

export const trigger = z.union([z.string(), z.number()], { error: "must be a string or a number" }).optional();
export const region = messagingRegion.meta({
  description: "The account's region, `eu-central-1` or `us-east-1`: actions go to its regional address.",
});
export const token = z
  .string({ error: "must be a string" })
  .min(1, "must not be empty")
  .optional()
  .meta({ description: "The account's messaging token (default: `mgmt:messagingToken`); always kept secret." });
export const flag = z.boolean({ error: "must be true or false" });

/** Where an action goes: the regional address of `region`, with `token` or mgmt:messagingToken. */
export interface ActionTargetArgs {
  region: pulumi.Input<MessagingRegion>;
  token?: pulumi.Input<string>;
}

export async function act<T>(
  what: string,
  action: string,
  inputs: { region: MessagingRegion },
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // No answer is not an answer: then the request's own message (what failed, what to check) is the detail.
    if (err.status === undefined) throw err.about(`could not ${action} ${what} in ${inputs.region}`);
    // A token valid only in another region: the declared region and the token's, and the way on.
    if (err instanceof UnauthorizedError && err.tokenRegion) {
      throw err.about(
        `could not ${action} ${what}`,
        `it is declared in ${inputs.region}, but the token is of an account in ${err.tokenRegion}, and a token is valid only in its account's region: declare region "${err.tokenRegion}", or give the token of an account in ${inputs.region}`,
      );
    }
    const answer = `${err.status}: ${err.serviceMessage ?? "no message"}`;
    const hint =
      err.status === 401
        ? " (is the token for an account in this region?)"
        : err.status === 412
          ? " (the account has as many queues as its plan allows, max_queues: delete a queue or raise the plan)"
          : "";
    // The same kind of error (not found, refused, ...), told about the key or queue.
    throw err.about(`could not ${action} ${what} in ${inputs.region}`, `the service answered ${answer}${hint}`);
  }
}

/**
 * At preview: a check failure when the token is of an account in another region than the declared
 * one, by one read at the declared region's address (for a resource whose check reads nothing
 * else there). Other failures are left to the up, which reports them on the call that fails.
 */
export async function regionProblem(
  client: MgmtClient,
  what: string,
  target: { region: MessagingRegion; token?: string },
): Promise<pulumi.dynamic.CheckFailure | undefined> {
  try {
    await act(what, "check the token of", target, () => client.flowControl(target).globalParallelism());
    return undefined;
  } catch (err) {
    return regionFailureOf(err);
  }
}

export const keyLabel = (key: string) => `flow control key "${key}"`;
export const queueLabel = (queue: string) => `queue "${queue}"`;

/** A trigger value this resource has not acted on yet. */
export const isNewTrigger = (value: string | number | undefined, last: string | number | undefined) =>
  value !== undefined && value !== last;

/** The fingerprint of the token a call will use (the resource's own, else mgmt:messagingToken): how a run's takeovers name a key or queue. */
export function tokenIdentityOf(client: MgmtClient, token: string | undefined): string {
  return tokenIdentity(token ?? requireSetting(client.settings, "messagingToken", "authenticate to the messaging API"));
}

export function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function secretOrUndefined(value: pulumi.Input<string> | undefined): pulumi.Input<string> | undefined {
  // Required here, on the program side only: the plugin (provider/plugin/) loads this module for
  // its input schemas and must not load the whole SDK.
  const { secret } = require("@pulumi/pulumi/output") as typeof import("@pulumi/pulumi/output");
  return value === undefined ? undefined : secret(value);
}

/**
 * Who changed a pause, for keys and queues alike: `pausedByStack` (the stack paused what was
 * running) or `resumedByStack` (it resumed what was paused). Destroy gives back only these.
 */
export interface PauseProvenance {
  pausedByStack?: boolean;
  resumedByStack?: boolean;
}

/** The record after this stack pauses (true) or resumes (false): undoing its own change clears it. */
export function pauseChanged(prov: PauseProvenance, pausing: boolean): PauseProvenance {
  if (pausing) return prov.resumedByStack ? { pausedByStack: prov.pausedByStack } : { pausedByStack: true };
  return prov.pausedByStack ? { resumedByStack: prov.resumedByStack } : { resumedByStack: true };
}
