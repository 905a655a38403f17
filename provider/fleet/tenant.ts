/**
 * A tenant: what each customer gets (a search index and its flow control policy, one stack per
 * tenant), the list of them read from a JSON file and checked before anything runs, and the
 * Pulumi program of a tenant's stack. The single-machine driver (examples/tenants) and the fleet
 * (fleet/queue.ts) both converge these.
 */
import { readFileSync } from "node:fs";
import { FlowControlKey } from "../resources/flowControlKey/flowControlKey";
import { SearchIndex } from "../resources/searchIndex/searchIndex";

/** The Pulumi project of every tenant stack. */
export const TENANT_PROJECT = "tenants";
/** A tenant's stack as `<project>/<stack>`: what the fence and the run records are keyed by. */
export const tenantStack = (id: string) => `${TENANT_PROJECT}/${id}`;

export interface Tenant {
  /** Stack name and index name prefix: lowercase letters, digits and '-'. */
  id: string;
  plan: "free" | "payg";
  searchRegion: "eu-west-1" | "us-central1";
  messagingRegion: "eu-central-1" | "us-east-1";
  /** The tenant's flow control key, and the limits pinned on it. */
  flowControlKey: string;
  pin?: { parallelism?: number; rate?: number; period?: number };
}

const ID = /^[a-z0-9][a-z0-9-]{0,39}$/;
const oneOf = <T extends string>(field: string, value: unknown, allowed: readonly T[], fallback: T): T => {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) throw new Error(`${field}: must be one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`);
  return value as T;
};

/** Every problem of the file at once, each naming the tenant and the field. */
export function readTenants(file: string): Tenant[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`cannot read the tenant list ${file}: ${(err as Error).message}`);
  }
  return checkTenants(raw, file);
}

/** A parsed tenant list, checked: every problem at once, each naming where, the tenant and the field. */
export function checkTenants(raw: unknown, file: string): Tenant[] {
  if (!Array.isArray(raw)) throw new Error(`${file}: must be a JSON array of tenants`);
  const problems: string[] = [];
  const seen = new Set<string>();
  const tenants: Tenant[] = [];
  raw.forEach((t: Record<string, unknown>, i) => {
    const where = `${file}[${i}]${typeof t?.id === "string" ? ` (${t.id})` : ""}`;
    try {
      if (typeof t !== "object" || t === null) throw new Error("must be an object");
      if (typeof t.id !== "string" || !ID.test(t.id)) throw new Error(`id: must be 1 to 40 lowercase letters, digits and '-', got ${JSON.stringify(t.id)}`);
      if (seen.has(t.id)) throw new Error(`id: "${t.id}" is listed twice`);
      seen.add(t.id);
      if (typeof t.flowControlKey !== "string" || t.flowControlKey === "") throw new Error("flowControlKey: must be a non-empty string");
      tenants.push({
        id: t.id,
        plan: oneOf("plan", t.plan, ["free", "payg"], "free"),
        searchRegion: oneOf("searchRegion", t.searchRegion, ["eu-west-1", "us-central1"], "eu-west-1"),
        messagingRegion: oneOf("messagingRegion", t.messagingRegion, ["eu-central-1", "us-east-1"], "eu-central-1"),
        flowControlKey: t.flowControlKey,
        pin: t.pin as Tenant["pin"], // checked by FlowControlKey itself, naming the field
      });
    } catch (err) {
      problems.push(`${where}: ${(err as Error).message}`);
    }
  });
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return tenants;
}

/**
 * The program of every tenant's stack: a search index and its flow control policy. The index is
 * auto-named (`<tenant>-search-<8 hex>`): a name drawn for this resource is proof that an index
 * under it is this stack's, so a create cut short by a dead worker is imported on the next run
 * (automation/recovery.ts) instead of being refused as someone else's.
 */
export function tenantProgram(t: Tenant) {
  return async () => {
    const index = new SearchIndex(`${t.id}-search`, { region: t.searchRegion, type: t.plan });
    new FlowControlKey("policy", { region: t.messagingRegion, key: t.flowControlKey, pin: t.pin });
    return { indexName: index.name, indexId: index.id, endpoint: index.endpoint };
  };
}
