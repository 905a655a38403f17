import { z } from "zod";
import type { Call, MessagingTarget } from "./request";
import { describeIssues } from "./schemas";
import { AddEndpointsBody, UrlGroupRecord, type UrlGroupEndpoint } from "./urlGroupSchemas";
import { UserError } from "../userError";

/** One messaging account's URL groups (the API's topics) in one region (contract "Schedules, URL groups and signing keys"). */
export class UrlGroups {
  constructor(
    private readonly call: Call,
    private readonly target: MessagingTarget,
  ) {}

  /** Adds endpoints, making the group with its first; an endpoint's URL already there only takes the name given. */
  async addEndpoints(group: string, endpoints: UrlGroupEndpoint[]): Promise<void> {
    const parsed = AddEndpointsBody.safeParse({ endpoints });
    if (!parsed.success) throw new UserError(`invalid URL group endpoints: ${describeIssues(parsed.error).join("; ")}`);
    // The contract gives the status (200), not a body: whatever comes is not read.
    await this.call("addUrlGroupEndpoints", {
      params: { group },
      body: parsed.data,
      ...this.target,
      schema: z.unknown(),
    });
  }
  /** Removes endpoints by URL; removing the last one removes the group too (contract). */
  async removeEndpoints(group: string, urls: string[]): Promise<void> {
    await this.call("removeUrlGroupEndpoints", {
      params: { group },
      body: { endpoints: urls.map((url) => ({ url })) },
      ...this.target,
      schema: z.unknown(),
    });
  }
  /** One group; NotFoundError when the account has none of that name. */
  get(group: string): Promise<UrlGroupRecord> {
    return this.call("getUrlGroup", { params: { group }, ...this.target, schema: UrlGroupRecord });
  }
  /** All of the account's groups in the region. */
  list(): Promise<UrlGroupRecord[]> {
    return this.call("listUrlGroups", { ...this.target, schema: z.array(UrlGroupRecord) });
  }
  /** Deletes a group and its endpoints; the service refuses (400) while a schedule publishes to it. */
  async delete(group: string): Promise<void> {
    await this.call("deleteUrlGroup", { params: { group }, ...this.target, schema: z.unknown() });
  }
}
