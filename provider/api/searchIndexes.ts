import { z } from "zod";
import type { Call } from "./request";
import {
  CreateSearchIndexBody,
  OkBody,
  SearchIndexRecord,
  SearchStats,
  SearchIndexStats,
  describeIssues,
  type SearchType,
  type StatsPeriod,
} from "./schemas";
import { UserError } from "../userError";

/** Search indexes, on the management API (endpoints 1-3 and the assumed rename, set-plan, delete). */
export class SearchIndexes {
  constructor(private readonly call: Call) {}

  /** Creates an index. Not harmless to resend: the caller reconciles by name after an ambiguous answer. */
  async create(body: CreateSearchIndexBody): Promise<SearchIndexRecord> {
    const parsed = CreateSearchIndexBody.safeParse(body);
    if (!parsed.success) throw new UserError(`invalid search index: ${describeIssues(parsed.error).join("; ")}`);
    return this.call("createSearchIndex", { body: parsed.data, schema: SearchIndexRecord });
  }
  /** One index by id, tokens included; NotFoundError when this user has none with that id. */
  get(id: string): Promise<SearchIndexRecord> {
    return this.call("getSearchIndex", { params: { id }, schema: SearchIndexRecord });
  }
  /** All of this user's indexes. */
  list(): Promise<SearchIndexRecord[]> {
    return this.call("listSearchIndexes", { schema: z.array(SearchIndexRecord) });
  }
  /** Renames an index in place. */
  async rename(id: string, name: string): Promise<void> {
    await this.call("renameSearchIndex", { params: { id }, body: { name }, schema: OkBody });
  }
  /** Moves an index to another plan in place. */
  async setPlan(id: string, plan: SearchType): Promise<void> {
    await this.call("setSearchIndexPlan", { params: { id }, body: { target_plan: plan }, schema: OkBody });
  }
  /**
   * Replaces both tokens of an index (the old ones stop working at once); the answer does not
   * carry the new ones: read them with `get`. Not harmless to resend: compare tokens first.
   */
  async resetTokens(id: string): Promise<void> {
    await this.call("resetSearchIndexTokens", { params: { id }, schema: OkBody });
  }
  /** An index's usage over a period (default 1h): metrics and time series, as the service gives them. */
  stats(id: string, period?: StatsPeriod): Promise<SearchIndexStats> {
    return this.call("getSearchIndexStats", { params: { id }, query: { period }, schema: SearchIndexStats });
  }
  /** Totals over all of this user's indexes. */
  totals(): Promise<SearchStats> {
    return this.call("getSearchStats", { schema: SearchStats });
  }
  /** Deletes an index and its data. */
  async delete(id: string): Promise<void> {
    await this.call("deleteSearchIndex", { params: { id }, schema: OkBody });
  }
}
