import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import { isNotFound } from "../api/errors";
import { MESSAGING_REGIONS, camelize, type MessagingRegion } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { UserError } from "../userError";
import { messagingAccountArgs } from "./args";
import { getMessagingAccounts, type MessagingAccount } from "./getMessagingAccounts";
import { checkedArgs } from "./validArgs";

/** By id; or, without one, the first active account in a region (of a type). */
/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetMessagingAccountArgs {
  id?: string;
  region?: MessagingRegion;
  type?: "free" | "paid";
}
export interface GetMessagingAccountOutputArgs {
  id?: pulumi.Input<string>;
  region?: pulumi.Input<MessagingRegion>;
  type?: pulumi.Input<"free" | "paid">;
}
export type GetMessagingAccountResult = MessagingAccount;

/** One messaging account, tokens included: use the Output form to keep them secret. */
export async function getMessagingAccount(args: GetMessagingAccountArgs): Promise<GetMessagingAccountResult> {
  const { id, region, type } = checkedArgs("getMessagingAccount", messagingAccountArgs, args);
  if (id !== undefined) {
    try {
      return camelize(await programClient().messagingAccounts.get(id));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // What the service said too: a wrong mgmt:baseUrl answers 404 for every account.
      throw new UserError(
        `getMessagingAccount: id: no messaging account "${id}" for this user (getMessagingAccounts() lists them; the service answered: ${err.message})`,
      );
    }
  }
  if (!region) {
    throw new UserError(`getMessagingAccount: give id, or region (one of ${MESSAGING_REGIONS.join(", ")})`);
  }
  const found = (await getMessagingAccounts()).find(
    (a) => a.region === region && !a.deletionTime && (!type || a.type === type),
  );
  if (!found)
    throw new UserError(
      `getMessagingAccount: no active messaging account in ${region}${type ? ` of type ${type}` : ""} for this user`,
    );
  return found;
}

/**
 * One account as a secret Output: the usual way to feed `MessagingControls` its region and
 * token.
 */
export function getMessagingAccountOutput(
  args: GetMessagingAccountOutputArgs,
): pulumi.Output<GetMessagingAccountResult> {
  return rootSdk().secret(
    rootSdk()
      .all([args.id, args.region, args.type])
      .apply(([id, region, type]) => getMessagingAccount({ id, region, type })),
  );
}
