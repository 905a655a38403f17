import { z } from "zod";
import type { Call } from "./request";
import { DatabaseRecord, OkBody } from "./schemas";

/** Databases' budgets, on the management API (contract: the databases themselves are not managed here). */
export class Databases {
  constructor(private readonly call: Call) {}

  /** All of this user's databases. */
  list(): Promise<DatabaseRecord[]> {
    return this.call("listDatabases", { schema: z.array(DatabaseRecord) });
  }
  /** One database; NotFoundError for an unknown id or another user's. */
  get(id: string): Promise<DatabaseRecord> {
    return this.call("getDatabase", { params: { id }, schema: DatabaseRecord });
  }
  /** Sets a database's monthly budget in whole dollars (0: no limit). */
  async setBudget(id: string, budget: number): Promise<void> {
    await this.call("updateDatabaseBudget", { params: { id }, body: { budget }, schema: OkBody });
  }
}
