import { z } from "zod";
import type { Call } from "./request";
import {
  Ipv4Addresses,
  MESSAGING_PLAN_NAMES,
  MessagingAccountRecord,
  OkBody,
  MessagingAccountStats,
  type MessagingPlan,
  type StatsPeriod,
} from "./schemas";

/** Messaging accounts, on the management API (endpoints 4-5 and the contract's named operations). */
export class MessagingAccounts {
  constructor(private readonly call: Call) {}

  /** All of this user's messaging accounts, deleted ones included (with `deletion_time`). */
  list(): Promise<MessagingAccountRecord[]> {
    return this.call("listMessagingAccounts", { schema: z.array(MessagingAccountRecord) });
  }
  /** One account, tokens included; NotFoundError for an unknown id or another user's. */
  get(id: string): Promise<MessagingAccountRecord> {
    return this.call("getMessagingAccount", { params: { id }, schema: MessagingAccountRecord });
  }
  /** Sets an account's monthly budget in whole dollars (0: no limit). */
  async setBudget(id: string, budget: number): Promise<void> {
    await this.call("updateBudget", { params: { id }, body: { budget }, schema: OkBody });
  }
  /**
   * Replaces the account's tokens (the old ones stop working at once) and answers the record with
   * the new ones. Not harmless to resend: compare with a fresh read first.
   */
  rotateToken(id: string): Promise<MessagingAccountRecord> {
    return this.call("rotateMessagingToken", { params: { id }, schema: MessagingAccountRecord });
  }
  /** Moves the account to a paid or fixed plan; there is no way back to free. */
  async setPlan(id: string, plan: MessagingPlan): Promise<void> {
    await this.call("setMessagingPlan", {
      params: { id },
      body: { plan_name: MESSAGING_PLAN_NAMES[plan] },
      schema: OkBody,
    });
  }
  /** Turns the production pack on or off; either twice changes nothing. */
  async setProdPack(id: string, enabled: boolean): Promise<void> {
    await this.call(enabled ? "enableProdPack" : "disableProdPack", { params: { id }, schema: OkBody });
  }
  /** The account's usage over a period (default 1h): daily series and totals, as the service gives them. */
  stats(id: string, period?: StatsPeriod): Promise<MessagingAccountStats> {
    return this.call("getMessagingStats", { params: { id }, query: { period }, schema: MessagingAccountStats });
  }
  /** The addresses messages are delivered from (IPv4 CIDRs): what firewalls must allow. */
  ipv4Addresses(): Promise<string[]> {
    return this.call("getMessagingIpv4", { schema: Ipv4Addresses });
  }
}
