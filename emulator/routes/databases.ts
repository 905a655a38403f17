/**
 * Databases (management API, HTTP Basic): the contract's budget operations. Databases themselves
 * are not managed here: each seeded user has two, and only their budget changes.
 */
import { UpdateDatabaseBudgetBody } from "pulumi-mgmt/internal/api/schemas";
import { HttpError, OK, jsonObject, parseOr400, type Ctx, type EmulatorState, type Handler } from "../http";
import type { Database } from "../state";

export function databaseHandlers(emu: EmulatorState) {
  /** One of the user's databases; unknown or another user's: 404. */
  const databaseOf = (ctx: Ctx): Database => {
    const user = ctx.user();
    const row = emu.data.databases.find((d) => d.record.database_id === ctx.params.id && d.owner === user.username);
    if (!row) throw new HttpError(404, `database ${ctx.params.id} not found`);
    return row;
  };

  return {
    updateDatabaseBudget: (ctx) => {
      const row = databaseOf(ctx);
      row.record.budget = parseOr400(UpdateDatabaseBudgetBody, jsonObject(ctx.body)).budget;
      return OK;
    },
    getDatabase: (ctx) => ({ body: databaseOf(ctx).record }),
    listDatabases: (ctx) => {
      const user = ctx.user();
      return { body: emu.data.databases.filter((d) => d.owner === user.username).map((d) => d.record) };
    },
  } satisfies Record<string, Handler>;
}
