/**
 * Messaging accounts (management API, HTTP Basic): endpoints 4 and 5 and the contract's named
 * operations: get one, rotate its token, set its plan, the production pack, statistics and the
 * service's outbound addresses.
 */
import {
  MESSAGING_PLAN_NAMES,
  SetMessagingPlanBody,
  UpdateBudgetBody,
  type MessagingPlan,
} from "pulumi-mgmt/internal/api/schemas";
import { HttpError, OK, jsonObject, parseOr400, type Ctx, type EmulatorState, type Handler } from "../http";
import { accountPlan, rotateAccountTokens, setAccountPlan, type Account } from "../state";
import { dailySeries, daysOf, periodOf, usageSeed } from "../stats";

/**
 * The addresses messages are delivered from, as users put them in allow lists: fixed, from the
 * documentation ranges (RFC 5737), never routable.
 */
export const OUTBOUND_IPV4 = [
  "203.0.113.7/32",
  "203.0.113.8/32",
  "198.51.100.20/32",
  "198.51.100.21/32",
  "192.0.2.64/28",
];

const PLAN_BY_WIRE_NAME = new Map(
  Object.entries(MESSAGING_PLAN_NAMES).map(([plan, wire]) => [wire, plan as MessagingPlan]),
);

export function accountHandlers(emu: EmulatorState) {
  /** One of the user's live accounts; unknown, another user's or deleted: 404. */
  const accountOf = (ctx: Ctx): Account => {
    const user = ctx.user();
    const account = emu.data.accounts.find(
      (a) => a.record.id === ctx.params.id && a.owner === user.username && !a.record.deletion_time,
    );
    if (!account) throw new HttpError(404, `messaging account ${ctx.params.id} not found`);
    return account;
  };
  const setProdPack = (ctx: Ctx, enabled: boolean) => {
    // Either twice succeeds and changes nothing (contract).
    accountOf(ctx).record.prod_pack_enabled = enabled;
    return OK;
  };

  return {
    listMessagingAccounts: (ctx) => {
      const user = ctx.user();
      return { body: emu.data.accounts.filter((a) => a.owner === user.username).map((a) => a.record) };
    },
    updateBudget: (ctx) => {
      const account = accountOf(ctx);
      account.record.budget = parseOr400(UpdateBudgetBody, jsonObject(ctx.body)).budget;
      return OK;
    },
    getMessagingAccount: (ctx) => ({ body: accountOf(ctx).record }),
    rotateMessagingToken: (ctx) => {
      // Messaging calls authenticate by the record's token: the old one is refused from now on.
      const account = accountOf(ctx);
      rotateAccountTokens(account.record);
      return { body: account.record, mutates: true };
    },
    setMessagingPlan: (ctx) => {
      const account = accountOf(ctx);
      const body = jsonObject(ctx.body);
      const allowed = Object.values(MESSAGING_PLAN_NAMES).join(", ");
      if (body.plan_name === "free")
        throw new HttpError(400, `plan_name: an account cannot move back to the free plan; must be one of ${allowed}`);
      const parsed = SetMessagingPlanBody.safeParse(body);
      if (!parsed.success) throw new HttpError(400, `plan_name: must be one of ${allowed}`);
      const plan = PLAN_BY_WIRE_NAME.get(parsed.data.plan_name)!;
      const changed = setAccountPlan(account.record, plan, parsed.data.plan_name);
      return { body: "OK", mutates: changed };
    },
    enableProdPack: (ctx) => setProdPack(ctx, true),
    disableProdPack: (ctx) => setProdPack(ctx, false),
    getMessagingStats: (ctx) => {
      const account = accountOf(ctx);
      const period = periodOf(ctx.query);
      // Stable per account: a free account stays within its daily allowance.
      const seed = usageSeed(account.record.id);
      const plan = accountPlan(account.record);
      const perDay = plan === "free" ? 50 + (seed % 400) : 5_000 + (seed % 50_000);
      const price = plan === "free" ? 0 : plan === "paid" ? 0.00001 : 0;
      const days = daysOf(period);
      // One point per day of the period: 1 for up to a day, then 3, 7 or 30.
      const requests = dailySeries(period, perDay);
      const total = requests.reduce((sum, p) => sum + p.y, 0);
      const day = (at: string) =>
        new Date(at.replace(" +0000 UTC", "Z").replace(" ", "T")).toLocaleDateString("en-US", {
          weekday: "long",
          timeZone: "UTC",
        });
      return {
        body: {
          days: requests.map((p) => day(p.x)),
          daily_requests: requests,
          daily_billings: requests.map((p) => ({ x: p.x, y: Math.round(p.y * price * 100) / 100 })),
          daily_bandwidths: requests.map((p) => ({ x: p.x, y: p.y * 1_536 })),
          daily_used: requests.map((p) => ({ x: p.x, y: p.y * 1_536 })),
          daily_messaging_messages: requests.map((p) => ({ x: p.x, y: Math.round(p.y * 0.9) })),
          dlq_message_count: seed % 7,
          daily_bandwidth_used: Math.round((total * 1_536) / days),
          total_monthly_billing:
            Math.round((total * price + ((account.record.reserved_price ?? 0) * days) / 30) * 100) / 100,
        },
      };
    },
    getMessagingIpv4: (ctx) => {
      ctx.user();
      return { body: OUTBOUND_IPV4 };
    },
  } satisfies Record<string, Handler>;
}
