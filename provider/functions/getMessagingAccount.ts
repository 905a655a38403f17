import * as pulumi from "@pulumi/pulumi";
import { MESSAGING_REGIONS, type MessagingRegion } from "../api/schemas";
import { UserError } from "../userError";
import { getMessagingAccounts, type MessagingAccount } from "./getMessagingAccounts";

export interface GetMessagingAccountOutputArgs {
  region: pulumi.Input<MessagingRegion>;
  /** The first active account of this type; default: the first active one. */
  type?: pulumi.Input<"free" | "paid">;
}
export type GetMessagingAccountResult = MessagingAccount;

/**
 * One active account in a region, as a secret Output: the usual way to feed `MessagingControls`
 * its region and token.
 */
export function getMessagingAccountOutput(args: GetMessagingAccountOutputArgs): pulumi.Output<GetMessagingAccountResult> {
  return pulumi.secret(
    pulumi.all([args.region, args.type, getMessagingAccounts()]).apply(([region, type, accounts]) => {
      if (!(MESSAGING_REGIONS as readonly string[]).includes(region)) {
        throw new UserError(`getMessagingAccountOutput: region must be one of ${MESSAGING_REGIONS.join(", ")}, got "${region}"`);
      }
      const found = accounts.find((a) => a.region === region && !a.deletionTime && (!type || a.type === type));
      if (!found) throw new UserError(`getMessagingAccountOutput: no active messaging account in ${region}${type ? ` of type ${type}` : ""} for this user`);
      return found;
    }),
  );
}
