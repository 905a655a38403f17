import type * as pulumi from "@pulumi/pulumi";
import { rootSdk } from "../rootSdk";
import { programClient } from "../resources/programClient";

export interface GetMessagingIpv4AddressesResult {
  /** IPv4 CIDRs (for example `203.0.113.7/32`) messages are delivered from: what a firewall must allow. */
  addresses: string[];
}

/** The messaging service's outbound addresses, for allow lists. */
export async function getMessagingIpv4Addresses(): Promise<GetMessagingIpv4AddressesResult> {
  return { addresses: await programClient().messagingAccounts.ipv4Addresses() };
}

export function getMessagingIpv4AddressesOutput(): pulumi.Output<GetMessagingIpv4AddressesResult> {
  return rootSdk().output(getMessagingIpv4Addresses());
}
