// One tenant's stack, converged (or destroyed) with retries for transient failures.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { FlowControlKey, SearchIndex } from "pulumi-mgmt";
import { mgmtStack, recoverPendingCreates, type MgmtConfig } from "pulumi-mgmt/automation";
import type { Tenant } from "./tenantList";

export interface RunOptions {
  backendUrl: string;
  /** Each tenant gets <workRoot>/<id>: Pulumi keeps the selected stack in a file per folder. */
  workRoot: string;
  mgmt: MgmtConfig;
  retries: number;
  destroy: boolean;
  /** After a crash of the driver: break the stack's lock and import its pending creates first. */
  recover: boolean;
  signal: AbortSignal;
}

export interface TenantResult {
  tenant: string;
  status: "created" | "updated" | "unchanged" | "destroyed" | "failed" | "cancelled";
  index?: string;
  seconds: number;
  attempts: number;
  error?: string;
}

/** The program of every tenant's stack: a search index and its flow control policy. */
function program(t: Tenant) {
  return async () => {
    const index = new SearchIndex("index", { name: `${t.id}-search`, region: t.searchRegion, type: t.plan });
    new FlowControlKey("policy", { region: t.messagingRegion, key: t.flowControlKey, pin: t.pin });
    return { indexName: index.name, indexId: index.id, endpoint: index.endpoint };
  };
}

/**
 * Worth another attempt: the service, the network or the state backend failing for a moment.
 * "unable to open bucket" covers the backend; with postgres:// it also covers a race seen here:
 * CLIs opening an empty database at once collide creating its table (duplicate pg_type key).
 */
export function isTransient(message: string): boolean {
  if (isLocked(message)) return false; // someone else is changing this stack: never fight them
  return /\b(429|500|502|503|504)\b|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|socket hang up|timed? ?out|temporarily unavailable|unable to open bucket/i.test(message);
}

export const isLocked = (message: string) => /currently locked|another update is currently in progress|conflict: another update/i.test(message);

/** The engine's own `error:` lines, not its whole output. */
export function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  if (isLocked(text)) return "another update of this stack is in progress (Pulumi's lock): wait for it to finish; after a crash of this driver, run it again with --recover";
  const lines = [...text.matchAll(/^\s*error: (.+)$/gm)].map((m) => m[1].trim()).filter((l) => l !== "update failed" && !/^preview failed/.test(l));
  return (lines.length > 0 ? [...new Set(lines)].join("; ") : text.split("\n")[0]).slice(0, 400);
}

function statusOf(changes: Record<string, number> | undefined, destroy: boolean): TenantResult["status"] {
  if (destroy) return "destroyed";
  if (!changes) return "unchanged";
  if ((changes.create ?? 0) > 0) return "created";
  if (Object.entries(changes).some(([k, n]) => k !== "same" && n > 0)) return "updated";
  return "unchanged";
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

export async function converge(t: Tenant, o: RunOptions, progress: (line: string) => void): Promise<TenantResult> {
  const started = Date.now();
  const workDir = path.join(o.workRoot, t.id);
  mkdirSync(workDir, { recursive: true });
  const done = (r: Omit<TenantResult, "tenant" | "seconds">): TenantResult => ({ tenant: t.id, seconds: (Date.now() - started) / 1000, ...r });
  const onOutput = (out: string) => {
    const line = out.split("\n").map((l) => l.trim()).filter(Boolean).pop();
    if (line) progress(line);
  };

  for (let attempt = 1; ; attempt++) {
    try {
      const tenant = await mgmtStack({ workDir, projectName: "tenants", stackName: t.id, backendUrl: o.backendUrl, mgmt: o.mgmt, program: program(t) });
      const { stack } = tenant;
      if (o.recover && attempt === 1) {
        await stack.cancel();
        const report = await recoverPendingCreates(stack);
        if (report.imported.length + report.cleared.length > 0) progress(`recovered: ${report.imported.length} imported, ${report.cleared.length} cleared`);
      }
      if (o.destroy) {
        await tenant.destroy({ onOutput, signal: o.signal });
        await stack.workspace.removeStack(t.id);
        return done({ status: "destroyed", attempts: attempt });
      }
      const up = await tenant.up({ onOutput, signal: o.signal });
      return done({ status: statusOf(up.summary.resourceChanges, false), index: up.outputs.indexName?.value, attempts: attempt });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (o.signal.aborted) return done({ status: "cancelled", attempts: attempt, error: "cancelled: the driver was stopped" });
      if (!isTransient(message) || attempt > o.retries) return done({ status: "failed", attempts: attempt, error: reason(err) });
      const wait = 2000 * attempt;
      progress(`attempt ${attempt} failed for a transient reason (${reason(err)}); retrying in ${wait / 1000}s`);
      await sleep(wait, o.signal);
    }
  }
}
