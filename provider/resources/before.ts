/**
 * What an object was before this stack first acted on it, read by `check` of a new resource.
 *
 * Keys, queues and budgets are taken over, not created: what destroy gives back is what the
 * create found. A create that was interrupted (the CLI killed, the machine lost) leaves only a
 * pending create in the state, holding the inputs `check` returned, and nothing of what the
 * create read. Read in `check`, that "before" travels in those inputs: recovery
 * (automation/recovery.ts `recoverPendingCreates`) imports the resource with it, and the refresh that
 * follows works out from it and from what is there now what the interrupted run changed
 * (each provider's `read`). The create itself uses it too, rather than reading a second time.
 */
import type * as pulumi from "@pulumi/pulumi";
import { UnauthorizedError } from "../api/errors";

/** A resource `check` has not seen before: it has no old inputs. */
export const isNewResource = (olds: Record<string, unknown> | undefined) => !olds || Object.keys(olds).length === 0;

/** What `read` answers when the object the resource acts on is not there: the create would fail. */
export class Absent {
  constructor(
    readonly property: string,
    readonly reason: string,
  ) {}
}

/**
 * Adds `before` to the checked inputs of a new resource. `read` returns undefined when it cannot
 * read yet (a value unknown in a preview), and an `Absent` when the object is not there: then the
 * check fails, so a preview fails where the up would. A failed read is left to the create, which
 * reads again and reports it.
 */
export async function withBefore<B>(
  result: pulumi.dynamic.CheckResult,
  olds: Record<string, unknown> | undefined,
  read: () => Promise<B | Absent | undefined>,
): Promise<pulumi.dynamic.CheckResult> {
  if (result.failures?.length) return result;
  if (!isNewResource(olds)) return { ...result, inputs: asRecorded(result.inputs ?? {}, olds!) };
  try {
    const before = await read();
    if (before instanceof Absent)
      return { inputs: result.inputs, failures: [{ property: before.property, reason: before.reason }] };
    return before === undefined ? result : { inputs: { ...result.inputs, before } };
  } catch (err) {
    // A token of another region's account: the preview fails, naming both regions (messagingFields.ts).
    const failure = regionFailureOf(err);
    return failure ? { inputs: result.inputs, failures: [failure] } : result;
  }
}

/**
 * The check failure for a messaging token refused in the declared region and accepted in another
 * (the client names that region): the declared region or the token is wrong, and the up would fail.
 */
export function regionFailureOf(err: unknown): pulumi.dynamic.CheckFailure | undefined {
  return err instanceof UnauthorizedError && err.tokenRegion ? { property: "region", reason: err.message } : undefined;
}

/** A resource imported by recovery: its inputs with `before`, and nothing a create wrote yet. */
export const isRecovered = (props: { before?: unknown; managedBy?: string }) =>
  props.before !== undefined && props.managedBy === undefined;

/** Inputs the providers add for themselves; a user never declares them. */
const INTERNAL_INPUTS = ["before", "resourceName"] as const;

/**
 * The inputs of a resource that exists, with the internal fields as the stack recorded them (absent
 * where it recorded none). The engine shows a preview's `[diff: ...]` by comparing old and new
 * inputs itself (the dynamic provider host passes no detailed diff), so a field that changed
 * here, such as `before` (read only for a new resource) or a `resourceName` a refresh did not
 * record, appeared in it although the user never declared it.
 */
export function asRecorded(inputs: Record<string, unknown>, olds: Record<string, unknown>): Record<string, unknown> {
  const out = { ...inputs };
  for (const field of INTERNAL_INPUTS) {
    if (field in olds) out[field] = olds[field];
    else delete out[field];
  }
  return out;
}
