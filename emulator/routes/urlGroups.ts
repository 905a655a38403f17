/**
 * URL groups (the API's topics; messaging API, Bearer, regional): add and remove endpoints, get,
 * list, delete. Adding makes the group; removing its last endpoint removes it. An endpoint's URL
 * is its identity in the group: adding a URL already there sets its name. More groups than the
 * account's `max_topics`, or more endpoints in one than `max_endpoints_per_topic`, answer 412; a
 * group a schedule publishes to is not deleted (400).
 */
import {
  AddEndpointsBody,
  RemoveEndpointsBody,
  urlGroupName,
  type UrlGroupRecord,
} from "pulumi-mgmt/internal/api/urlGroupSchemas";
import { HttpError, OK, jsonObject, parseOr400, type Ctx, type EmulatorState, type Handler } from "../http";
import type { Topic } from "../state";

export function urlGroupHandlers(_emu: EmulatorState) {
  const nameOf = (ctx: Ctx): string => parseOr400(urlGroupName, ctx.params.group, "URL group name");
  const groupOf = (ctx: Ctx): Topic => {
    const topic = ctx.account().topics[nameOf(ctx)];
    if (!topic) throw new HttpError(404, `URL group ${ctx.params.group} not found`);
    return topic;
  };
  const recordOf = (name: string, t: Topic): UrlGroupRecord => ({
    name,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    endpoints: t.endpoints.map((e) => ({ url: e.url, name: e.name ?? "" })),
  });

  return {
    addUrlGroupEndpoints: (ctx) => {
      const account = ctx.account();
      const name = nameOf(ctx);
      const { endpoints } = parseOr400(AddEndpointsBody, jsonObject(ctx.body), "endpoints");
      const now = Date.now();
      let topic = account.topics[name];
      if (!topic) {
        const limit = account.record.max_topics ?? 1000;
        if (Object.keys(account.topics).length >= limit)
          throw new HttpError(412, `URL group limit reached: this account may have at most ${limit} URL groups`);
      }
      const next = topic ? topic.endpoints.map((e) => ({ ...e })) : [];
      for (const e of endpoints) {
        const there = next.find((n) => n.url === e.url);
        if (there) there.name = e.name;
        else next.push({ url: e.url, ...(e.name !== undefined && { name: e.name }) });
      }
      const perGroup = account.record.max_endpoints_per_topic ?? 100;
      if (next.length > perGroup)
        throw new HttpError(412, `endpoint limit reached: a URL group may have at most ${perGroup} endpoints`);
      topic ??= account.topics[name] = { endpoints: [], createdAt: now, updatedAt: now };
      Object.assign(topic, { endpoints: next, updatedAt: now });
      return OK;
    },
    removeUrlGroupEndpoints: (ctx) => {
      const { endpoints } = parseOr400(RemoveEndpointsBody, jsonObject(ctx.body), "endpoints");
      const topic = groupOf(ctx);
      const removed = (e: { url: string; name?: string }) =>
        endpoints.some((r) => (r.url !== undefined && r.url === e.url) || (r.name !== undefined && r.name === e.name));
      topic.endpoints = topic.endpoints.filter((e) => !removed(e));
      topic.updatedAt = Date.now();
      if (topic.endpoints.length === 0) delete ctx.account().topics[ctx.params.group];
      return OK;
    },
    getUrlGroup: (ctx) => ({ body: recordOf(ctx.params.group, groupOf(ctx)) }),
    listUrlGroups: (ctx) => ({ body: Object.entries(ctx.account().topics).map(([name, t]) => recordOf(name, t)) }),
    deleteUrlGroup: (ctx) => {
      groupOf(ctx);
      const account = ctx.account();
      const publishing = Object.entries(account.schedules)
        .filter(([, s]) => s.destination === ctx.params.group)
        .map(([id]) => id);
      if (publishing.length > 0)
        throw new HttpError(
          400,
          `URL group ${ctx.params.group} is the destination of schedule ${publishing.join(", ")}: delete the schedule first`,
        );
      delete account.topics[ctx.params.group];
      return OK;
    },
  } satisfies Record<string, Handler>;
}
