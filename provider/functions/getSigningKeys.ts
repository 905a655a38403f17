import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import type { MessagingRegion } from "../api/schemas";
import { programClient } from "../resources/programClient";
import { signingKeysArgs } from "./args";
import { checkedArgs } from "./validArgs";

/** Descriptions: the arguments' schema (args.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface GetSigningKeysArgs {
  region: MessagingRegion;
  token?: string;
}
export interface GetSigningKeysOutputArgs {
  region: pulumi.Input<MessagingRegion>;
  token?: pulumi.Input<string>;
}
/** Both keys are secrets: receivers verify message signatures with either. */
export interface GetSigningKeysResult {
  current: string;
  next: string;
}

/** The account's signing keys, as they are now. Use the Output form to keep them secret. */
export async function getSigningKeys(args: GetSigningKeysArgs): Promise<GetSigningKeysResult> {
  const { region, token } = checkedArgs("getSigningKeys", signingKeysArgs, args);
  const { current, next } = await programClient().signingKeys({ region, token }).get();
  return { current, next };
}

/** The account's signing keys as a secret Output. */
export function getSigningKeysOutput(args: GetSigningKeysOutputArgs): pulumi.Output<GetSigningKeysResult> {
  return rootSdk().secret(
    rootSdk()
      .all([args.region, args.token])
      .apply(([region, token]) => getSigningKeys({ region, token })),
  );
}
