/**
 * Recovery after an interrupted `up`: the pending creates a killed run left, imported or cleared
 * only as far as what the run did can be proven.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { MgmtClient } from "../api/client";
import type { SearchIndexRecord } from "../api/schemas";
import { resolveSettings } from "../config";
import { dynamicToken, token } from "../plugin/pulumiTypes";
import { resourceOfType } from "../resources/all";

/** This package's resources in state: as dynamic resources, and through the `mgmt` plugin (the fleet's tenants). */
const OUR_TYPES = [dynamicToken(""), token("")];
const kindOf = (type: string): string | undefined =>
  OUR_TYPES.some((prefix) => type.startsWith(prefix)) ? type.slice(type.lastIndexOf(":") + 1) : undefined;

interface PendingOperation {
  type: string;
  resource: {
    urn: string;
    type: string;
    id?: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
  };
}

export interface RecoveryReport {
  /** Indexes the interrupted run created, and keys, queues and budgets it took over: now in the stack under their id. */
  imported: { urn: string; id: string; name: string }[];
  /**
   * Creates that never happened, and takeovers of keys, queues and budgets without a recorded
   * "before" (a token unknown at check): dropped from the pending list.
   */
  cleared: string[];
  /**
   * Indexes that exist under a name the user chose, which nothing proves the interrupted run
   * created (it may be someone else's): left out of the stack and untouched. The next `up`
   * refuses the taken name and says how to adopt it.
   */
  unproven: { urn: string; id: string; name: string }[];
}

/**
 * The index an interrupted create made, found only with proof: a name drawn at random for this
 * resource (autoName) is nobody else's, and `adopt` names the index the user asked to manage. An
 * index under a name the user chose may be someone else's ("unproven").
 */
function provenIndex(
  inputs: Record<string, unknown>,
  existing: SearchIndexRecord[],
): SearchIndexRecord | "unproven" | undefined {
  const { name, autoName, adopt } = inputs;
  if (typeof adopt === "string")
    return existing.find((i) => i.id === adopt) ?? existing.find((i) => i.name === adopt || i.name === name);
  const found = existing.find((i) => i.name === name);
  if (!found) return undefined;
  return typeof autoName === "string" && autoName === name ? found : "unproven";
}

/**
 * Brings a stack back after an `up` that was killed (or lost its machine) while creating:
 * Pulumi recorded each create it had started as a "pending create", with the inputs, so with
 * the name the index was to get. Each pending SearchIndex is looked up by that name with the
 * stack's own credentials; one that exists and is proven this stack's (provenIndex) becomes a
 * resource of the stack under its id, and a refresh reads its outputs; one that does not exist is
 * cleared; one under a name the user chose is reported and left alone. (`pulumi refresh
 * --import-pending-creates URN ID` means to do the same, but the 3.248 engine drops the marked
 * operation without importing it.) Pending keys, queues and budgets are imported with how `check`
 * found them, and the refresh works out what the interrupted run changed, so destroy gives it
 * back; without that record they are cleared, and what the run may have changed is left. Pending
 * operations of other providers are left as they are.
 *
 * Run `pulumi cancel` first if the killed run left the stack locked. Then `up` converges, with
 * no duplicate: never `--clear-pending-creates` on its own, which forgets indexes that exist.
 */
export async function recoverPendingCreates(stack: Stack): Promise<RecoveryReport> {
  const exported = await stack.exportStack();
  const pending = ((exported.deployment.pending_operations ?? []) as PendingOperation[]).filter(
    (op) => op.type === "creating" && kindOf(op.resource.type) !== undefined,
  );
  const report: RecoveryReport = { imported: [], cleared: [], unproven: [] };
  if (pending.length === 0) return report;

  const config = await stack.getAllConfig();
  const client = new MgmtClient(
    resolveSettings((key) => config[key]?.value, { ...process.env, ...stack.workspace.envVars }),
  );
  const existing = pending.some((op) => kindOf(op.resource.type) === "SearchIndex")
    ? await client.searchIndexes.list()
    : [];

  const keep: PendingOperation[] = [];
  const resources = exported.deployment.resources as PendingOperation["resource"][];
  for (const op of exported.deployment.pending_operations as PendingOperation[]) {
    if (!pending.includes(op)) {
      keep.push(op);
      continue;
    }
    const kind = kindOf(op.resource.type);
    // A resource that takes over an object rather than creating one (its declaration's `takeover`):
    // `check` recorded in its pending create how it found the object (resources/before.ts), which
    // is what proves what the interrupted run changed.
    const takenOver = kind ? resourceOfType(kind)?.takeover : undefined;
    const inputs = op.resource.inputs ?? {};
    if (takenOver && inputs.before !== undefined) {
      // Imported with how the object was found: the refresh below works out what the run changed.
      const { id, name } = takenOver(inputs as Record<string, string>);
      resources.push({ ...op.resource, id, outputs: { ...inputs } });
      report.imported.push({ urn: op.resource.urn, id, name });
      continue;
    }
    const found = kind === "SearchIndex" ? provenIndex(inputs, existing) : undefined;
    if (found === "unproven") {
      const name = String(inputs.name);
      report.unproven.push({ urn: op.resource.urn, id: existing.find((i) => i.name === name)!.id, name });
    } else if (found) {
      // The recorded inputs stand for the outputs (name and region; for a dynamic resource the
      // __provider its host finds its code in, which a create that never answered has not
      // written) until the refresh below reads the real ones. Appended last, after its parent and provider.
      resources.push({ ...op.resource, id: found.id, outputs: { ...inputs } });
      report.imported.push({ urn: op.resource.urn, id: found.id, name: found.name });
    } else {
      report.cleared.push(op.resource.urn);
    }
  }
  exported.deployment.pending_operations = keep;
  await stack.importStack(exported);
  // The refresh reads each imported resource: its outputs become what the service reports.
  if (report.imported.length > 0) await stack.refresh();
  return report;
}
