import { z } from "zod";
import type { Call } from "./request";
import { MessagingAccountRecord, OkBody } from "./schemas";

/** Messaging accounts, on the management API (endpoints 4-5). */
export class MessagingAccounts {
  constructor(private readonly call: Call) {}

  /** All of this user's messaging accounts, deleted ones included (with `deletion_time`). */
  list(): Promise<MessagingAccountRecord[]> {
    return this.call("listMessagingAccounts", { schema: z.array(MessagingAccountRecord) });
  }
  /** Sets an account's monthly budget in whole dollars (0: no limit). */
  async setBudget(id: string, budget: number): Promise<void> {
    await this.call("updateBudget", { params: { id }, body: { budget }, schema: OkBody.or(z.unknown()) });
  }
}
