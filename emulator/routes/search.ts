/** Search indexes (management API, HTTP Basic): endpoints 1-3 and the assumed rename, set plan and delete. */
import { CreateSearchIndexBody, RenameSearchIndexBody, SetPlanBody } from "../../provider/api/schemas";
import { HttpError, OK, jsonObject, parseOr400, type EmulatorState, type Handler } from "../http";
import { newIndexRecord, setIndexPlan, type User } from "../state";

export function searchHandlers(emu: EmulatorState) {
  const indexOf = (user: User, id: string) => {
    const row = emu.data.indexes.find((i) => i.record.id === id && i.owner === user.username);
    if (!row) throw new HttpError(404, `search index ${id} not found`);
    return row;
  };
  const nameTaken = (user: User, name: string) => emu.data.indexes.some((i) => i.owner === user.username && i.record.name === name);

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
      if (name !== row.record.name && nameTaken(user, name)) throw new HttpError(409, `a search index named ${name} already exists`);
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
  } satisfies Record<string, Handler>;
}

/** `YYYY-MM-DD HH:MM:SS.mmm +0000 UTC`, the shape of throughput timestamps (spec 2.1). */
function metricTime(): string {
  return new Date().toISOString().replace("T", " ").replace("Z", " +0000 UTC");
}

