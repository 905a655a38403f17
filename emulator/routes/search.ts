/**
 * Search indexes (management API, HTTP Basic): endpoints 1-3 and the assumed rename, set plan,
 * delete, token reset and statistics (one index's, and the totals over all of a user's).
 *
 * `GET /v2/search/stats` (the totals) and `GET /v2/search/:id` (one index) share a path shape:
 * fastify's router (find-my-way) tries a static segment before a parametric one, so "stats"
 * reaches getSearchStats and never getSearchIndex with the id "stats".
 */
import {
  CreateSearchIndexBody,
  RenameSearchIndexBody,
  SetPlanBody,
  type SearchIndexRecord,
  type SearchStats,
} from "pulumi-mgmt/internal/api/schemas";
import { HttpError, OK, jsonObject, parseOr400, type EmulatorState, type Handler } from "../http";
import { newIndexRecord, resetIndexTokens, setIndexPlan, type User } from "../state";
import { countSeries, dailySeries, metricTime, periodOf, usageSeed } from "../stats";

export function searchHandlers(emu: EmulatorState) {
  const indexOf = (user: User, id: string) => {
    const row = emu.data.indexes.find((i) => i.record.id === id && i.owner === user.username);
    if (!row) throw new HttpError(404, `search index ${id} not found`);
    return row;
  };
  const nameTaken = (user: User, name: string) =>
    emu.data.indexes.some((i) => i.owner === user.username && i.record.name === name);

  return {
    createSearchIndex: (ctx) => {
      const user = ctx.user();
      const body = jsonObject(ctx.body);
      if (body.type === "fixed") throw new HttpError(400, "fixed plan is not available");
      const { name, region, type } = parseOr400(CreateSearchIndexBody, body);
      if (nameTaken(user, name)) throw new HttpError(409, `a search index named ${name} already exists`);
      const record = newIndexRecord(user, name, emu.placement[region] ?? region, type as "free" | "payg");
      emu.data.indexes.push({ owner: user.username, record });
      return { body: record, mutates: true };
    },
    getSearchIndex: (ctx) => {
      const row = indexOf(ctx.user(), ctx.params.id);
      // Metrics move all the time (contract): every read sees a new point.
      const points = row.record.throughput_vector ?? [];
      points.push({ x: metricTime(), y: Math.round(Math.random() * 100) });
      row.record.throughput_vector = points.slice(-10);
      return { body: row.record };
    },
    listSearchIndexes: (ctx) => {
      const user = ctx.user();
      return { body: emu.data.indexes.filter((i) => i.owner === user.username).map((i) => i.record) };
    },
    renameSearchIndex: (ctx) => {
      const user = ctx.user();
      const row = indexOf(user, ctx.params.id);
      const { name } = parseOr400(RenameSearchIndexBody, jsonObject(ctx.body));
      if (name !== row.record.name && nameTaken(user, name))
        throw new HttpError(409, `a search index named ${name} already exists`);
      row.record.name = name;
      return OK;
    },
    setSearchIndexPlan: (ctx) => {
      const row = indexOf(ctx.user(), ctx.params.id);
      const body = jsonObject(ctx.body);
      if (body.target_plan === "fixed") throw new HttpError(400, "fixed plan is not available");
      setIndexPlan(row.record, parseOr400(SetPlanBody, body).target_plan as "free" | "payg");
      return OK;
    },
    deleteSearchIndex: (ctx) => {
      const row = indexOf(ctx.user(), ctx.params.id);
      emu.data.indexes = emu.data.indexes.filter((i) => i !== row);
      return OK;
    },
    resetSearchIndexTokens: (ctx) => {
      // Same id, name and endpoint; the answer does not carry the new tokens (contract).
      resetIndexTokens(indexOf(ctx.user(), ctx.params.id).record);
      return OK;
    },
    getSearchIndexStats: (ctx) => {
      const row = indexOf(ctx.user(), ctx.params.id);
      const period = periodOf(ctx.query);
      const usage = indexUsage(row.record);
      // The fields of the service's reference (contract "Shapes of those reads").
      const queries = dailySeries(period, (usage.request * 0.8) / 30);
      const updates = dailySeries(period, (usage.request * 0.2) / 30);
      const reranks = dailySeries(period, usage.rerank_count / 30);
      return {
        body: {
          pending_index_count: 0,
          current_vector_count: usage.record_count,
          vector_count: usage.record_count,
          data_size: usage.storage,
          storage_usage: usage.storage,
          daily_query_count: Math.round((usage.request * 0.8) / 30),
          daily_update_count: Math.round((usage.request * 0.2) / 30),
          monthly_query_count: Math.round(usage.request * 0.8),
          monthly_update_count: Math.round(usage.request * 0.2),
          monthly_bandwidth_usage: usage.bandwidth,
          monthly_cost: usage.billing,
          daily_rerank_count: Math.round(usage.rerank_count / 30),
          monthly_rerank_count: usage.rerank_count,
          days: queries.map((p) => p.x.slice(0, 10)),
          daily_query_requests: queries.map((p) => p.y),
          daily_update_requests: updates.map((p) => p.y),
          daily_bandwidths: queries.map((p, i) => (p.y + updates[i].y) * 2_048),
          daily_rerank_requests: reranks.map((p) => p.y),
          query_throughput: countSeries(period, (usage.request * 0.8) / 30),
          update_throughput: countSeries(period, (usage.request * 0.2) / 30),
          query_latency_mean: 12,
          query_latency_99: 45,
          update_latency_mean: 20,
          update_latency_99: 70,
        },
      };
    },
    getSearchStats: (ctx) => {
      const user = ctx.user();
      const totals: SearchStats = {
        record_count: 0,
        request: 0,
        bandwidth: 0,
        storage: 0,
        rerank_count: 0,
        billing: 0,
      };
      for (const row of emu.data.indexes.filter((i) => i.owner === user.username)) {
        const usage = indexUsage(row.record);
        for (const field of ["record_count", "request", "bandwidth", "storage", "rerank_count"] as const)
          totals[field] += usage[field];
        totals.billing = Math.round((totals.billing + usage.billing) * 100) / 100;
      }
      return { body: totals };
    },
  } satisfies Record<string, Handler>;
}

/**
 * An index's usage this month: stable per index (derived from its id), so one index's statistics
 * and the user's totals agree. Free indexes are within their daily limits and cost nothing.
 */
function indexUsage(record: SearchIndexRecord): SearchStats {
  const seed = usageSeed(record.id);
  const record_count = 100 + (seed % 9_900);
  const request = 1_000 + ((seed >>> 4) % 200_000);
  const rerank_count = record.type === "free" ? 0 : (seed >>> 8) % 5_000;
  return {
    record_count,
    request,
    bandwidth: request * 2_048,
    storage: record_count * 6_144,
    rerank_count,
    billing: record.type === "free" ? 0 : Math.round((request * 0.0004 + rerank_count * 0.001) * 100) / 100,
  };
}
