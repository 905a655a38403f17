/** Messaging accounts (management API, HTTP Basic): endpoints 4 and 5. */
import { UpdateBudgetBody } from "../../provider/api/schemas";
import { HttpError, OK, jsonObject, parseOr400, type EmulatorState, type Handler } from "../http";

export function accountHandlers(emu: EmulatorState) {
  return {
    listMessagingAccounts: (ctx) => {
      const user = ctx.user();
      return { body: emu.data.accounts.filter((a) => a.owner === user.username).map((a) => a.record) };
    },
    updateBudget: (ctx) => {
      const user = ctx.user();
      const account = emu.data.accounts.find((a) => a.record.id === ctx.params.id && a.owner === user.username && !a.record.deletion_time);
      if (!account) throw new HttpError(404, `messaging account ${ctx.params.id} not found`);
      account.record.budget = parseOr400(UpdateBudgetBody, jsonObject(ctx.body)).budget;
      return OK;
    },
  } satisfies Record<string, Handler>;
}
