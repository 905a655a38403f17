/**
 * A tenant: what each customer gets (a search index and its flow control policy, one stack per
 * tenant), the list of them read from a JSON file and checked before anything runs. The program
 * of a tenant's stack is in tenantResources.ts. The single-machine driver (examples/tenants) and
 * the fleet (fleet/queue.ts, fleet/worker.ts) both converge these.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { oneOf } from "pulumi-mgmt/internal/api/schemas";
import { PinSpec } from "pulumi-mgmt/internal/resources/flowControlKey/schema";
import { UserError } from "pulumi-mgmt/internal/userError";

/** The Pulumi project of every tenant stack. */
export const TENANT_PROJECT = "tenants";
/** A tenant's stack as `<project>/<stack>`: what the fence and the run records are keyed by. */
export const tenantStack = (id: string) => `${TENANT_PROJECT}/${id}`;

const ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

/** One tenant of the list; every message names the field (the list's check adds where and which tenant). */
const TenantEntry = z.object(
  {
    /** Stack name and index name prefix: lowercase letters, digits and '-'. */
    id: z
      .string({
        error: (issue) => `must be 1 to 40 lowercase letters, digits and '-', got ${JSON.stringify(issue.input)}`,
      })
      .regex(ID, {
        error: (issue) => `must be 1 to 40 lowercase letters, digits and '-', got ${JSON.stringify(issue.input)}`,
      }),
    plan: oneOf(["free", "payg"]).default("free"),
    searchRegion: oneOf(["eu-west-1", "us-central1"]).default("eu-west-1"),
    messagingRegion: oneOf(["eu-central-1", "us-east-1"]).default("eu-central-1"),
    /** The tenant's flow control key, and the limits pinned on it. */
    flowControlKey: z.string({ error: "must be a non-empty string" }).min(1, "must be a non-empty string"),
    // Checked by FlowControlKey's own schema, so that a bad pin is refused at submit, not by each
    // job's run; kept as given (the resource fills in the period itself).
    pin: z
      .looseObject(
        { parallelism: z.number().optional(), rate: z.number().optional(), period: z.number().optional() },
        { error: "must be an object of parallelism, rate and period" },
      )
      .superRefine((pin, ctx) => {
        for (const issue of PinSpec.safeParse(pin).error?.issues ?? [])
          ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
      })
      .optional(),
  },
  { error: "must be an object" },
);
export type Tenant = z.output<typeof TenantEntry>;

const TenantList = z.array(TenantEntry, { error: "must be a JSON array of tenants" });

/** The id of an entry of the raw list, if it has a string one (whatever else is wrong with it). */
function idOf(entry: unknown): string | undefined {
  const id = typeof entry === "object" && entry !== null && "id" in entry ? entry.id : undefined;
  return typeof id === "string" ? id : undefined;
}

/**
 * A string id given again, as an issue at its later entry. Outside the schema: zod skips a list's
 * refinement once an entry fails, and a duplicate must be said with the list's other problems.
 */
function duplicateIds(raw: unknown): z.core.$ZodIssueBase[] {
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  return raw.flatMap((entry: unknown, i) => {
    const id = idOf(entry);
    if (id === undefined) return [];
    const again = seen.has(id);
    seen.add(id);
    return again ? [{ code: "custom", path: [i, "id"], message: `"${id}" is listed twice`, input: id }] : [];
  });
}

/** Every problem of the file at once, each naming the tenant and the field. */
export function readTenants(file: string): Tenant[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new UserError(`cannot read the tenant list ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return checkTenants(raw, file);
}

/**
 * A parsed tenant list, checked: every problem at once, on one line, each naming where, the
 * tenant and the field: `tenants.json[2] (t2): plan: must be one of free, payg, got "gold"`.
 */
export function checkTenants(raw: unknown, file: string): Tenant[] {
  const parsed = TenantList.safeParse(raw);
  const issues = [...(parsed.error?.issues ?? []), ...duplicateIds(raw)].sort(
    (a, b) => Number(a.path[0] ?? -1) - Number(b.path[0] ?? -1),
  );
  if (parsed.success && issues.length === 0) return parsed.data;
  const problems = issues.map((issue) => {
    const [index, field] = issue.path;
    if (typeof index !== "number") return `${file}: ${issue.message}`;
    const entryId = idOf(Array.isArray(raw) ? raw[index] : undefined);
    const id = entryId === undefined ? "" : ` (${entryId})`;
    return `${file}[${index}]${id}: ${field === undefined ? "" : `${issue.path.slice(1).map(String).join(".")}: `}${issue.message}`;
  });
  throw new UserError(problems.join("; "));
}
