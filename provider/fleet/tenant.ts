// The tenant list: what each customer gets, read from a JSON file and checked before anything runs.
import { readFileSync } from "node:fs";

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
