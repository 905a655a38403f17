/**
 * `up`, `refresh` and `destroy` exactly as the Automation API runs them, without the CLI commands
 * it runs afterwards to learn what the engine's own events already said.
 *
 * After the update itself, the Automation API's `up` runs `pulumi stack output` twice (masked and
 * plain, to tell secrets apart) and `pulumi stack history`, and `refresh` and `destroy` run
 * `stack history`: each a whole CLI start, stack load and passphrase derivation, about a third of
 * a small update's CPU. Here the summary comes from the engine's summary event and the outputs
 * from the stack resource's outputs event; only when an output is secret (the event masks it) is
 * one `stack export --show-secrets` read instead of three commands.
 *
 * The summary holds what the engine reported: no history entry is read, so it has no version
 * number, message, environment or config (`stack.info()` reads them: one `stack history`).
 * How the SDK's own method is made to take these answers is sdkAdapter.ts's business.
 */
import type {
  DestroyOptions,
  DestroyResult,
  EngineEvent,
  OpMap,
  OutputMap,
  RefreshOptions,
  RefreshResult,
  Stack,
  SummaryEvent,
  UpdateKind,
  UpdateSummary,
  UpOptions,
  UpResult,
} from "@pulumi/pulumi/automation";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime";
import { UserError } from "../userError";
import { destroyWithoutFollowUps, refreshWithoutFollowUps, upWithoutFollowUps, type AfterCommand } from "./sdkAdapter";

const STACK_TYPE = "pulumi:pulumi:Stack";

/**
 * An operation's summary as the engine reported it, or (when its events did not say enough) the
 * stack's history entry, which has these fields and more.
 */
export type LeanSummary = Pick<UpdateSummary, "kind" | "startTime" | "endTime" | "result" | "resourceChanges">;

export type LeanUpResult = Omit<UpResult, "summary"> & { summary: LeanSummary };
export type LeanRefreshResult = Omit<RefreshResult, "summary"> & { summary: LeanSummary };
export type LeanDestroyResult = Omit<DestroyResult, "summary"> & { summary: LeanSummary };

export function leanUp(stack: Stack, opts: UpOptions = {}): Promise<LeanUpResult> {
  const seen = new Seen(opts.onEvent);
  return upWithoutFollowUps(stack, { ...opts, onEvent: seen.on }, answers(stack, seen, "update"));
}

export function leanRefresh(stack: Stack, opts: RefreshOptions = {}): Promise<LeanRefreshResult> {
  const seen = new Seen(opts.onEvent);
  return refreshWithoutFollowUps(stack, { ...opts, onEvent: seen.on }, answers(stack, seen, "refresh"));
}

export function leanDestroy(stack: Stack, opts: DestroyOptions = {}): Promise<LeanDestroyResult> {
  const seen = new Seen(opts.onEvent);
  return destroyWithoutFollowUps(stack, { ...opts, onEvent: seen.on }, answers(stack, seen, "destroy"));
}

/** What the engine reported during one operation. */
class Seen {
  /** The engine's time of its first event (seconds since the epoch). */
  firstTimestamp?: number;
  summary?: { event: SummaryEvent; timestamp: number };
  stackOutputs?: Record<string, unknown>;

  constructor(private readonly forward?: (event: EngineEvent) => void) {}

  on = (event: EngineEvent): void => {
    this.firstTimestamp ??= event.timestamp;
    if (event.summaryEvent) this.summary = { event: event.summaryEvent, timestamp: event.timestamp };
    const step = event.resOutputsEvent?.metadata;
    if (step?.type === STACK_TYPE) this.stackOutputs = step.new?.outputs ?? {};
    this.forward?.(event);
  };
}

function answers(stack: Stack, seen: Seen, kind: UpdateKind): AfterCommand<LeanSummary> {
  return {
    outputs: () => outputsOf(stack, seen),
    summary: async (showSecrets) => summaryOf(kind, seen) ?? (await historyEntry(stack, showSecrets)),
  };
}

/**
 * The summary from the engine's events: the kind asked for, the engine's times of its first and
 * its summary event, its resource changes. The result is the engine's verdict: the SDK asks for
 * the summary only after the CLI exited 0, which it does only for an operation that succeeded (a
 * failed one throws the SDK's CommandError instead). Undefined when the events do not vouch for
 * it (no summary event, or the engine says the state may be corrupt): the history entry then.
 */
function summaryOf(kind: UpdateKind, seen: Seen): LeanSummary | undefined {
  if (!seen.summary || seen.summary.event.maybeCorrupt || seen.firstTimestamp === undefined) return undefined;
  const resourceChanges: OpMap = seen.summary.event.resourceChanges;
  return {
    kind,
    startTime: new Date(seen.firstTimestamp * 1000),
    endTime: new Date(seen.summary.timestamp * 1000),
    result: "succeeded",
    resourceChanges,
  };
}

async function historyEntry(stack: Stack, showSecrets?: boolean): Promise<LeanSummary> {
  const entry = await stack.info(showSecrets);
  if (!entry)
    throw new UserError(
      `stack "${stack.name}" has no history entry after its operation: run \`pulumi stack history\` to see what the engine recorded`,
    );
  return entry;
}

async function outputsOf(stack: Stack, seen: Seen): Promise<OutputMap> {
  // Assets and resource references print differently in `stack output`: the SDK's way for those.
  if (!seen.stackOutputs || containsSpecial(seen.stackOutputs, (v) => !isSecretEnvelope(v))) return stack.outputs();
  let outputs = seen.stackOutputs;
  if (containsSpecial(outputs, isSecretEnvelope)) {
    const deployment = await stack.exportStack();
    const root = (
      (deployment.deployment.resources ?? []) as { type: string; outputs?: Record<string, unknown> }[]
    ).find((r) => r.type === STACK_TYPE);
    outputs = root?.outputs ?? {};
  }
  // Like the SDK: a value is secret when the output itself is; secrets inside it come out plain.
  const map: OutputMap = {};
  for (const [key, value] of Object.entries(outputs))
    map[key] = { value: reveal(value), secret: isSecretEnvelope(value) };
  return map;
}

/** A special value of Pulumi's wire format (secret, asset, archive, resource reference): it carries the SDK's signature key. */
function isSpecial(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && specialSigKey in value;
}

function isSecretEnvelope(value: unknown): value is Record<string, unknown> {
  return isSpecial(value) && value[specialSigKey] === specialSecretSig;
}

/** Whether the value holds a special value that passes the test, at any depth. */
function containsSpecial(value: unknown, test: (special: Record<string, unknown>) => boolean): boolean {
  if (isSpecial(value)) return test(value) || Object.values(value).some((v) => containsSpecial(v, test));
  if (value && typeof value === "object") return Object.values(value).some((v) => containsSpecial(v, test));
  return false;
}

/** The value with every secret envelope (from `stack export --show-secrets`) replaced by its plaintext. */
function reveal(value: unknown): unknown {
  if (isSecretEnvelope(value)) return "plaintext" in value ? reveal(JSON.parse(String(value.plaintext))) : value;
  if (Array.isArray(value)) return value.map(reveal);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reveal(v)]));
  return value;
}
