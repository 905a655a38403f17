/**
 * A key's or queue's call to the messaging API: the labelled error of a failed call, the check of
 * a token's region at preview, and which token (so: which account) a call acts with.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { MgmtClient } from "../api/client";
import { ApiError, UnauthorizedError } from "../api/errors";
import type { MessagingRegion } from "../api/schemas";
import { requireSetting } from "../config";
import { regionFailureOf } from "./before";
import { tokenIdentity } from "./identity";

/** What a 412 means, by the account limit an object counts against. */
const LIMIT_HINTS = {
  queues: " (the account has as many queues as its plan allows, max_queues: delete a queue or raise the plan)",
  schedules:
    " (the account has as many schedules as its plan allows, max_schedules: delete a schedule or raise the plan)",
  urlGroups:
    " (the account's plan limits URL groups, max_topics, and endpoints per group, max_endpoints_per_topic: remove some or raise the plan)",
};

export async function act<T>(
  what: string,
  action: string,
  inputs: { region: MessagingRegion },
  call: () => Promise<T>,
  limit: keyof typeof LIMIT_HINTS = "queues",
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
          ? LIMIT_HINTS[limit]
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
export const scheduleLabel = (scheduleId: string) => `schedule "${scheduleId}"`;

/** The fingerprint of the token a call will use (the resource's own, else mgmt:messagingToken): how a run's takeovers name a key or queue. */
export function tokenIdentityOf(client: MgmtClient, token: string | undefined): string {
  return tokenIdentity(token ?? requireSetting(client.settings, "messagingToken", "authenticate to the messaging API"));
}
