/**
 * Flow control keys (messaging API, Bearer): endpoints 6-8, the assumed lift of a pause, and the
 * contract's additions: pin, unpin, the account's global parallelism and the list of its keys.
 *
 * A key's effective limits are the pinned ones where pinned, else those its latest messages
 * carried. Pinning resets the rate count and starts a new period (contract).
 */
import { PinQuery, UnpinQuery, flowControlKey } from "pulumi-mgmt/internal/api/schemas";
import { HttpError, OK, parseOr400, type Ctx, type EmulatorState, type Handler } from "../http";
import type { FlowKey } from "../state";

/** What endpoint 6 answers about a key: everything, or only the two documented fields. */
export type FlowControlReport = "full" | "documented";

export function flowControlHandlers(emu: EmulatorState) {
  const keyOf = (ctx: Ctx): FlowKey => {
    parseOr400(flowControlKey, ctx.params.key, "flow control key");
    const key = ctx.account().keys[ctx.params.key];
    if (!key) throw new HttpError(404, `flow control key ${ctx.params.key} not found`);
    return key;
  };
  const restartPeriod = (key: FlowKey) => {
    key.rateResets += 1;
    key.rateCount = 0;
    key.ratePeriodStart = Date.now();
  };

  /** What endpoint 6 answers about a key; the list answers the same for each key. */
  const reportOf = (name: string, key: FlowKey) => {
    const documented = { flowControlKey: name, waitListSize: key.waitListSize };
    if (emu.controls.flowControlReport === "documented") return documented;
    const pinned = key.pinned ?? {};
    const limit = (part: keyof typeof pinned) => pinned[part] ?? key.carried?.[part];
    return withoutUndefined({
      ...documented,
      parallelismMax: limit("parallelism"),
      parallelismCount: 0,
      rateMax: limit("rate"),
      rateCount: key.rateCount ?? 0,
      ratePeriod: limit("period"),
      ratePeriodStart: key.ratePeriodStart,
      isPaused: key.paused,
      isPinnedParallelism: pinned.parallelism !== undefined,
      isPinnedRate: pinned.rate !== undefined || pinned.period !== undefined,
    });
  };

  return {
    getFlowControl: (ctx) => ({ body: reportOf(ctx.params.key, keyOf(ctx)) }),
    listFlowControlKeys: (ctx) => ({
      body: Object.entries(ctx.account().keys).map(([name, key]) => reportOf(name, key)),
    }),
    resetRate: (ctx) => {
      restartPeriod(keyOf(ctx));
      return OK;
    },
    pauseFlowControl: (ctx) => {
      keyOf(ctx).paused = true;
      return OK;
    },
    resumeFlowControl: (ctx) => {
      keyOf(ctx).paused = false;
      return OK;
    },
    pinFlowControl: (ctx) => {
      // Contract "Flow control keys before their first message": pinning an unknown key creates it.
      parseOr400(flowControlKey, ctx.params.key, "flow control key");
      const pin = parseOr400(PinQuery, ctx.query, "pin");
      const keys = ctx.account().keys;
      const key = (keys[ctx.params.key] ??= { waitListSize: 0, paused: false, rateResets: 0 });
      key.pinned = withoutUndefined({ ...key.pinned, ...pin });
      key.pins = (key.pins ?? 0) + 1;
      restartPeriod(key);
      return OK;
    },
    unpinFlowControl: (ctx) => {
      const key = keyOf(ctx);
      const parts = parseOr400(UnpinQuery, ctx.query, "unpin");
      const pinned = { ...key.pinned };
      if (parts.parallelism === "true") delete pinned.parallelism;
      if (parts.rate === "true") {
        delete pinned.rate;
        delete pinned.period;
      }
      key.pinned = Object.keys(pinned).length > 0 ? pinned : undefined;
      return OK;
    },
    getGlobalParallelism: (ctx) => {
      const account = ctx.account();
      // In use: what the account's running queues may deliver at once. Zero fields are left out,
      // as the service may do (contract).
      const inUse = Object.values(account.queues).reduce((sum, q) => sum + (q.paused ? 0 : (q.parallelism ?? 1)), 0);
      return {
        body: withoutUndefined({
          parallelismMax: account.record.max_global_parallelism || undefined,
          parallelismCount: inUse || undefined,
        }),
      };
    },
  } satisfies Record<string, Handler>;
}

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
