import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import { camelize, type Camelized, type MessagingAccountRecord } from "../api/schemas";
import { programClient } from "../resources/programClient";

/** A messaging account: every field of record 2.2, in camelCase, `token` and `readOnlyToken` included. */
export type MessagingAccount = Camelized<MessagingAccountRecord>;
export type GetMessagingAccountsResult = MessagingAccount[];

/** The user's messaging accounts. Use the Output form to keep tokens secret. */
export async function getMessagingAccounts(): Promise<GetMessagingAccountsResult> {
  return (await programClient().messagingAccounts.list()).map((a) => camelize(a));
}

export function getMessagingAccountsOutput(): pulumi.Output<GetMessagingAccountsResult> {
  return rootSdk().secret(getMessagingAccounts());
}
