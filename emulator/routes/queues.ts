/**
 * Queues (messaging API, Bearer, regional): endpoint 9 (resume) and the contract's additions:
 * upsert, get, list, delete and pause. An upsert carries the full state: an omitted parallelism
 * becomes 1. More queues than the account's `max_queues` answer 412.
 */
import { UpsertQueueBody, queueName, type QueueRecord } from "pulumi-mgmt/internal/api/schemas";
import { HttpError, OK, jsonObject, parseOr400, type Ctx, type EmulatorState, type Handler } from "../http";
import type { Queue } from "../state";

export function queueHandlers(_emu: EmulatorState) {
  const queueOf = (ctx: Ctx): Queue => {
    parseOr400(queueName, ctx.params.queue, "queue name");
    const queue = ctx.account().queues[ctx.params.queue];
    if (!queue) throw new HttpError(404, `queue ${ctx.params.queue} not found`);
    return queue;
  };
  const recordOf = (name: string, q: Queue): QueueRecord => ({
    name,
    parallelism: q.parallelism ?? 1,
    lag: q.lag ?? 0,
    paused: q.paused,
    createdAt: q.createdAt ?? 0,
    updatedAt: q.updatedAt ?? q.createdAt ?? 0,
  });

  return {
    resumeQueue: (ctx) => {
      const queue = queueOf(ctx);
      queue.paused = false;
      queue.resumes += 1;
      return OK;
    },
    pauseQueue: (ctx) => {
      queueOf(ctx).paused = true;
      return OK;
    },
    upsertQueue: (ctx) => {
      const account = ctx.account();
      const body = jsonObject(ctx.body);
      // The service's default for an omitted parallelism; the client always sends it.
      const {
        queueName: name,
        parallelism,
        paused,
      } = parseOr400(UpsertQueueBody, { parallelism: 1, paused: false, ...body }, "queue");
      const now = Date.now();
      let queue = account.queues[name];
      if (!queue) {
        const limit = account.record.max_queues ?? 100;
        if (Object.keys(account.queues).length >= limit)
          throw new HttpError(412, `queue limit reached: this account may have at most ${limit} queues`);
        queue = account.queues[name] = { paused, resumes: 0, createdAt: now };
      }
      Object.assign(queue, { parallelism, paused, updatedAt: now, upserts: (queue.upserts ?? 0) + 1 });
      return { body: recordOf(name, queue), mutates: true };
    },
    getQueue: (ctx) => ({ body: recordOf(ctx.params.queue, queueOf(ctx)) }),
    listQueues: (ctx) => ({ body: Object.entries(ctx.account().queues).map(([name, q]) => recordOf(name, q)) }),
    deleteQueue: (ctx) => {
      queueOf(ctx);
      delete ctx.account().queues[ctx.params.queue];
      return OK;
    },
  } satisfies Record<string, Handler>;
}
