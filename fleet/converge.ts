/**
 * One tenant's stack, converged, destroyed or checked for drift: what the single-machine driver
 * (examples/tenants) and each fleet job (fleet/worker.ts) run. Transient failures are retried here
 * when the caller asks (the driver); a fleet job leaves retries to the job queue instead.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { ConcurrentUpdateError, StackNotFoundError, type EngineEvent, type Stack } from "@pulumi/pulumi/automation";
import { mgmtEnv, mgmtStack, type MgmtConfig } from "pulumi-mgmt/internal/automation/stack";
import { recoverPendingCreates } from "pulumi-mgmt/internal/automation/recovery";
import { forgetStack, isKnownStack, markStackKnown } from "./knownStacks";
import { tenantRunLogCap } from "./cliLogs";
import { alive } from "./processes";
import { settleStackLock } from "./stackLock";
import { TENANT_PROJECT, type Tenant } from "./tenant";
import { tenantProgram, useTenantPlugin } from "./tenantResources";

/** What a run does to a tenant's stack (and the flag its job carries in the queue: queue.ts). */
export const ACTIONS = ["converge", "destroy", "drift"] as const;
export type Action = (typeof ACTIONS)[number];

export interface RunOptions {
  backendUrl: string;
  /** Each tenant gets <workRoot>/<id>: Pulumi keeps the selected stack in a file per folder. */
  workRoot: string;
  mgmt: MgmtConfig;
  /** Further attempts after a transient failure, 2 s, 4 s, ... apart. */
  retries: number;
  action: Action;
  /** After a crash of whoever ran this stack last: break the stack's lock and import its pending creates first. */
  recover: boolean;
  signal: AbortSignal;
  /** The passphrase of the stacks' secrets; default PULUMI_CONFIG_PASSPHRASE(_FILE). */
  passphrase?: string;
  /** The run holds the stack's fleet fence (fencedRun.ts): a lock it finds is someone's outside the fleet. */
  fenced?: boolean;
  /** More environment for the Pulumi CLI and what it starts (a fenced run's marker, leftovers.ts). */
  envVars?: Record<string, string>;
  /** Each Pulumi CLI dies with this process and records its pid (automation/boundCli.ts). */
  boundCli?: boolean;
  /** How long `recover` waits for a lock it cannot prove stale before failing (unfenced runs). Default 0. */
  lockWaitMs?: number;
  /**
   * The caller knows the stack exists in the backend (the fleet's run records, fence.ts): no CLI
   * command selects it, even in a work folder that has not run it. Wrong only if the stack was
   * removed outside the fleet since: the run then finds it missing and creates it.
   */
  stackExists?: boolean;
}

/** A resource a drift check found changed outside the stack, and which of its fields; or deleted outside it. */
export interface Drift {
  resource: string;
  fields: string[];
  /** Gone from the service: a refresh would drop it from the state, and the next converge make it again. */
  deleted?: true;
}

export interface TenantResult {
  tenant: string;
  status: "created" | "updated" | "unchanged" | "destroyed" | "drifted" | "failed" | "cancelled";
  index?: string;
  seconds: number;
  attempts: number;
  error?: string;
  /** A failure worth another attempt later (the service, the network or the state backend failing for a moment). */
  transient?: boolean;
  /** What a drift check found. */
  drift?: Drift[];
  /** What the engine did, by operation. */
  changes?: Record<string, number>;
}

/**
 * Another update holds the stack's lock: the Automation API's typed error for it (it recognises
 * the DIY backends' "the stack is currently locked by" and the Pulumi Cloud's 409).
 */
export function isStackLocked(err: unknown): boolean {
  return err instanceof ConcurrentUpdateError;
}

/**
 * Worth another attempt: the service, the network or the state backend failing for a moment.
 * The Automation API has no typed error for any of these (a failed operation is a plain
 * CommandError whatever the cause), so they are read from the engine's text:
 * - the service's 429 and 5xx, and dropped or timed-out connections, as our provider's errors
 *   print them (they reach this process only as the CLI's output);
 * - "unable to open bucket": the CLI's error when it cannot open its state backend; with
 *   postgres:// it also covers a race seen here: CLIs opening an empty database at once collide
 *   creating its table (duplicate pg_type key); "terminating connection" is PostgreSQL's own;
 * - "Resource monitor is terminating": inline programs run side by side in one process, and the
 *   Automation API's program server listens for unhandled errors process-wide, so one run's
 *   engine shutting down can fail another run that did nothing wrong. Run again, it succeeds.
 */
export function isTransientFailure(err: unknown): boolean {
  if (isStackLocked(err)) return false; // someone else is changing this stack: never fight them
  const message = err instanceof Error ? err.message : String(err);
  if (/Resource monitor is terminating/.test(message)) return true;
  return /\b(429|500|502|503|504)\b|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|socket hang up|timed? ?out|temporarily unavailable|unable to open bucket|terminating connection|connection (was )?(terminated|closed|refused)/i.test(
    message,
  );
}

/**
 * Why a run found its stack locked. Under the fleet's fence (fencedRun.ts) no run of the fleet
 * holds Pulumi's lock by then (a dead or stopped run's is broken first), so whoever holds it works
 * on the stack from outside the fleet; without the fence (a file:// driver) it may be this
 * driver's own crashed run.
 */
const lockedReason = (fenced: boolean) =>
  fenced
    ? "another update of this stack is in progress outside the fleet (Pulumi's lock, while no fleet run holds the stack): wait for it to finish, or run `pulumi cancel` on the stack if its process is gone"
    : "another update of this stack is in progress (Pulumi's lock): wait for it to finish; after a crash of this driver, run it again with --recover";

const REASON_MAX = 400;

/** Why a run failed, in one line: the engine's own `error:` lines, not its whole output. */
export function runFailureReason(err: unknown, fenced = false): string {
  if (isStackLocked(err)) return lockedReason(fenced);
  const text = err instanceof Error ? err.message : String(err);
  const lines = [...text.matchAll(/^\s*error: (.+)$/gm)]
    .map((m) => m[1].trim())
    .filter((l) => l !== "update failed" && !/^preview failed/.test(l));
  const reason = lines.length > 0 ? [...new Set(lines)].join("; ") : text.split("\n")[0];
  // One status line: a long reason is cut, and says so.
  return reason.length > REASON_MAX ? `${reason.slice(0, REASON_MAX - 1)}…` : reason;
}

function statusOf(changes: Record<string, number> | undefined): TenantResult["status"] {
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

/**
 * The resources a refresh would change, and their fields, from a refresh preview's events: the
 * engine's own diff where it gives one, else the declared fields (the resource's inputs) whose
 * value the read found changed; and those the read found gone (the refresh's "delete").
 */
function driftCollector(): { onEvent: (e: EngineEvent) => void; found: Drift[] } {
  const found: Drift[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return {
    found,
    onEvent(e) {
      const step = e.resourcePreEvent?.metadata ?? e.resOutputsEvent?.metadata;
      if (!step || step.type === "pulumi:pulumi:Stack" || step.op === "same" || step.op === "read") return;
      const name = step.urn.split("::").pop() ?? step.urn;
      const entry = () => {
        let d = found.find((x) => x.resource === name);
        if (!d) found.push((d = { resource: name, fields: [] }));
        return d;
      };
      if (step.op === "delete") {
        Object.assign(entry(), { fields: [], deleted: true });
        return;
      }
      const fields = new Set([...(step.diffs ?? []), ...Object.keys(step.detailedDiff ?? {})]);
      const [before, after] = [step.old?.outputs, step.new?.outputs];
      if (before && after)
        for (const key of Object.keys(step.old?.inputs ?? {}))
          if (key in before && !same(before[key], after[key])) fields.add(key);
      const d = fields.size > 0 ? entry() : undefined;
      if (d && !d.deleted) d.fields = [...new Set([...d.fields, ...fields])].sort();
    },
  };
}

/** Why a run was stopped: the reason its signal was given, else (a plain abort) the driver's stop. */
function stopReason(signal: AbortSignal): string {
  const r = signal.reason;
  return r instanceof Error && r.name !== "AbortError" ? r.message : "the driver was stopped";
}

/** A lock taken on this machine by a process that no longer lives: nobody holds it. */
const deadHereHolder = (h: { hostname: string; pid: number }) =>
  h.hostname === hostname() && h.pid > 0 && !alive(h.pid);

/**
 * A stack written by an earlier version recorded the service's settings in its config, which
 * would win over the environment the runs now give them in: dropped once (the file is read, no
 * CLI command runs unless there is something to drop).
 */
async function dropRecordedSettings(stack: Stack, workDir: string): Promise<void> {
  let file: string;
  try {
    file = readFileSync(path.join(workDir, `Pulumi.${stack.name}.yaml`), "utf8");
  } catch {
    return;
  }
  const keys = [...file.matchAll(/^\s+(mgmt:[A-Za-z]+):/gm)].map((m) => m[1]);
  if (keys.length > 0) await stack.removeAllConfig(keys);
}

export async function converge(
  t: Tenant,
  o: RunOptions,
  progress: (line: string) => void = () => undefined,
): Promise<TenantResult> {
  const started = Date.now();
  // Absolute: the plugin's folder is named in the project file, which Pulumi resolves against the
  // project's own folder (a relative work root would be joined twice).
  const workDir = path.resolve(o.workRoot, t.id);
  mkdirSync(workDir, { recursive: true });
  const done = (r: Omit<TenantResult, "tenant" | "seconds">): TenantResult => ({
    tenant: t.id,
    seconds: (Date.now() - started) / 1000,
    ...r,
  });
  const onOutput = (out: string) => {
    const line = out
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .pop();
    if (line) progress(line);
  };

  const cancelled = (attempts: number) =>
    done({ status: "cancelled", attempts, error: `cancelled: ${stopReason(o.signal)}`, transient: true });
  // A stack not known to exist is selected, or created, by the CLI (`stack select --create`): one
  // CLI command more than a known stack's run.
  let known = o.stackExists === true || isKnownStack(workDir, o.backendUrl, t.id);
  for (let attempt = 1; ; attempt++) {
    // A signal given before the CLI starts would never reach it (the Automation API listens for the abort only after).
    if (o.signal.aborted) return cancelled(attempt);
    try {
      // The service's settings reach the plugin as environment variables, not as the stack's
      // config: the same for every tenant, and one CLI command per run (config set-all) fewer.
      // Pulumi's log folder stays small, or every CLI start lists a growing folder (cliLogs.ts).
      const tenant = await mgmtStack({
        workDir,
        projectName: TENANT_PROJECT,
        stackName: t.id,
        backendUrl: o.backendUrl,
        program: tenantProgram(t),
        known,
        envVars: { ...tenantRunLogCap(), ...mgmtEnv(o.mgmt), ...o.envVars },
        ...(o.passphrase ? { passphrase: o.passphrase } : {}),
        ...(o.boundCli ? { boundCli: true } : {}),
      });
      const { stack } = tenant;
      await useTenantPlugin(stack.workspace, workDir);
      await dropRecordedSettings(stack, workDir);
      if (o.recover && attempt === 1) {
        // A fenced run has settled Pulumi's lock under its fence (fencedRun.ts). Without a fence,
        // a lock is provably a dead run's only when it names this machine and a process that is gone.
        const refusal = o.fenced
          ? undefined
          : await settleStackLock({
              backendUrl: o.backendUrl,
              project: TENANT_PROJECT,
              stack: t.id,
              isDeadRunsOwn: deadHereHolder,
              waitMs: o.lockWaitMs ?? 0,
              notice: progress,
              signal: o.signal,
            });
        if (refusal) return done({ status: "failed", attempts: attempt, error: refusal, transient: false });
        const report = await recoverPendingCreates(stack);
        if (report.imported.length + report.cleared.length > 0)
          progress(`recovered: ${report.imported.length} imported, ${report.cleared.length} cleared`);
      }
      if (o.action === "destroy") {
        const destroyed = await tenant.destroy({ onOutput, signal: o.signal });
        forgetStack(workDir);
        await stack.workspace.removeStack(t.id);
        return done({
          status: "destroyed",
          attempts: attempt,
          changes: destroyed.summary.resourceChanges as Record<string, number>,
        });
      }
      if (o.action === "drift") {
        // A refresh that changes nothing: the preview of one, read from its events.
        const drift = driftCollector();
        await stack.previewRefresh({ onOutput, onEvent: drift.onEvent, signal: o.signal });
        markStackKnown(workDir, o.backendUrl, t.id);
        return done({
          status: drift.found.length > 0 ? "drifted" : "unchanged",
          attempts: attempt,
          drift: drift.found,
        });
      }
      const up = await tenant.up({ onOutput, signal: o.signal });
      markStackKnown(workDir, o.backendUrl, t.id);
      const changes = up.summary.resourceChanges as Record<string, number> | undefined;
      return done({ status: statusOf(changes), index: up.outputs.indexName?.value, attempts: attempt, changes });
    } catch (err) {
      if (known && err instanceof StackNotFoundError) {
        // Removed since this folder last ran it (a destroy elsewhere), or since the fleet's last
        // run of it (outside the fleet): made again by the CLI.
        forgetStack(workDir);
        known = false;
        attempt--;
        continue;
      }
      if (o.signal.aborted) return cancelled(attempt);
      const transient = isTransientFailure(err);
      if (!transient || attempt > o.retries)
        return done({ status: "failed", attempts: attempt, error: runFailureReason(err, o.fenced), transient });
      const wait = 2000 * attempt;
      progress(
        `attempt ${attempt} failed for a transient reason (${runFailureReason(err, o.fenced)}); retrying in ${wait / 1000}s`,
      );
      await sleep(wait, o.signal);
    }
  }
}
