/**
 * `up`, `refresh` and `destroy` exactly as the Automation API runs them, without the CLI commands
 * it runs afterwards to learn what the engine's own events already said.
 *
 * After the update itself, the Automation API's `up` runs `pulumi stack output` twice (masked and
 * plain, to tell secrets apart) and `pulumi stack history`, and `refresh` and `destroy` run
 * `stack history`: each a whole CLI start, stack load and passphrase derivation, about a third of
 * a small update's CPU. Here the summary comes from the engine's summary event and the outputs
 * from the stack's outputs event; only when an output is secret (the event masks it) is one
 * `stack export --show-secrets` read instead of three commands.
 *
 * It calls the SDK's own method on a view of the stack whose `outputs` and `info` answer from
 * the events, so every option, the inline program server and the error handling stay the SDK's.
 */
import type { DestroyOptions, DestroyResult, EngineEvent, OutputMap, RefreshOptions, RefreshResult, Stack, SummaryEvent, UpdateKind, UpdateSummary, UpOptions, UpResult } from "@pulumi/pulumi/automation";

/** Pulumi's mark of a special value (secret, asset, archive, resource reference) and of a secret. */
const SPECIAL_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_MARK = "1b47061264138c4ac30d75fd1eb44270";
const STACK_TYPE = "pulumi:pulumi:Stack";

export function leanUp(stack: Stack, opts: UpOptions = {}): Promise<UpResult> {
  const seen = new Seen(opts.onEvent);
  return stack.up.call(view(stack, seen, "update"), { ...opts, onEvent: seen.on });
}

export function leanRefresh(stack: Stack, opts: RefreshOptions = {}): Promise<RefreshResult> {
  const seen = new Seen(opts.onEvent);
  return stack.refresh.call(view(stack, seen, "refresh"), { ...opts, onEvent: seen.on });
}

export function leanDestroy(stack: Stack, opts: DestroyOptions = {}): Promise<DestroyResult> {
  const seen = new Seen(opts.onEvent);
  return stack.destroy.call(view(stack, seen, "destroy"), { ...opts, onEvent: seen.on });
}

/** What the engine reported during one operation. */
class Seen {
  readonly started = new Date();
  summary?: SummaryEvent & { result?: string };
  stackOutputs?: Record<string, unknown>;

  constructor(private readonly forward?: (event: EngineEvent) => void) {}

  on = (event: EngineEvent): void => {
    if (event.summaryEvent) this.summary = event.summaryEvent;
    const step = event.resOutputsEvent?.metadata;
    if (step?.type === STACK_TYPE) this.stackOutputs = step.new?.outputs ?? {};
    this.forward?.(event);
  };
}

/** The stack as the SDK's method sees it: everything its own, but `outputs` and `info` from the events. */
function view(stack: Stack, seen: Seen, kind: UpdateKind): Stack {
  return Object.create(stack, {
    outputs: { value: () => outputsOf(stack, seen) },
    info: { value: async (showSecrets?: boolean) => (seen.summary ? summaryOf(kind, seen) : stack.info(showSecrets)) },
  }) as Stack;
}

async function outputsOf(stack: Stack, seen: Seen): Promise<OutputMap> {
  // Assets and resource references print differently in `stack output`: the SDK's way for those.
  if (!seen.stackOutputs || containsSpecial(seen.stackOutputs, (v) => !isSecretEnvelope(v))) return stack.outputs();
  let outputs = seen.stackOutputs;
  if (containsSpecial(outputs, isSecretEnvelope)) {
    const deployment = await stack.exportStack();
    const root = ((deployment.deployment.resources ?? []) as { type: string; outputs?: Record<string, unknown> }[]).find((r) => r.type === STACK_TYPE);
    outputs = root?.outputs ?? {};
  }
  // Like the SDK: a value is secret when the output itself is; secrets inside it come out plain.
  const map: OutputMap = {};
  for (const [key, value] of Object.entries(outputs)) map[key] = { value: reveal(value), secret: isSecretEnvelope(value) };
  return map;
}

/**
 * The summary the events give: kind, times, result and resource changes. The history's version
 * number, message, environment and config are not in them (0 and empty; `stack.history()` has them).
 */
function summaryOf(kind: UpdateKind, seen: Seen): UpdateSummary {
  const summary = seen.summary!;
  return {
    version: 0,
    kind,
    startTime: seen.started,
    endTime: new Date(),
    message: "",
    environment: {},
    config: {},
    result: (summary.result ?? "succeeded") as UpdateSummary["result"],
    resourceChanges: summary.resourceChanges,
  };
}

function isSpecial(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && SPECIAL_SIG in (value as object);
}

function isSecretEnvelope(value: unknown): value is Record<string, unknown> {
  return isSpecial(value) && value[SPECIAL_SIG] === SECRET_MARK;
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
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reveal(v)]));
  return value;
}
