/**
 * What a resource waits for while its request is retried, shown on its line of the engine's
 * progress. A refused connection, a 503 or a rate limit can hold an operation for seconds to
 * minutes (maxRetries, totalTimeoutMs); without a word the user sees only "creating (40s)".
 *
 * The request layer (api/http.ts) reports each retry it decides on; a provider process that knows
 * its engine (the plugin, the dynamic provider host) passes it on as an ephemeral status message
 * (the engine's Log call): shown beside the resource until the next message or the end of its
 * step, never kept in the diagnostics or the state. The plugin knows which resource most calls
 * are for (their URN); the dynamic provider host is not told, and the engine shows its messages,
 * and the plugin's for calls without a resource (invokes), on the stack's line. At most one a
 * second reaches a line: under a rate limit, hundreds of resources retry at once.
 *
 * The message names the request (method and route, as the final error does) and the failure (a
 * status code or an error code), never a header, a query or the service's text. Reporting never
 * throws and never waits: an engine that is gone only loses the message.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { processState } from "./processState";

export interface RetryWait {
  /** "GET /v2/search" */
  request: string;
  /** "answered 503", "rate limited (429)", "no answer (ECONNREFUSED)" */
  reason: string;
  /** The retry about to be sent, from 1. */
  retry: number;
  /** How many retries this failure may have. */
  of: number;
  delayMs: number;
  /** The resource whose call sent the request (`callingResource()` when it was sent). */
  urn?: string;
}

export function waitMessage(w: RetryWait): string {
  return `${w.request}: ${w.reason}; trying again in ${(w.delayMs / 1000).toFixed(1)} s (retry ${w.retry} of ${w.of})`;
}

type Sink = (message: string, urn: string | undefined) => void;

/** Process state (processState.ts): the sink is set once per process, and every copy of the package reports to it. */
const notices = () =>
  processState("waitNotice", () => ({
    sink: undefined as Sink | undefined,
    engine: undefined as string | undefined,
    /** tellEngine's way to the engine (set with the engine's address). */
    tell: undefined as ((message: string, urn: string | undefined) => Promise<void>) | undefined,
    urn: new AsyncLocalStorage<string>(),
    /** When each line (a URN, or "" for the stack's) last got a message. */
    shownAt: new Map<string, number>(),
  }));

/** The least time between two messages on one line. */
export const MESSAGE_GAP_MS = 1_000;

/** Reports a retry the request layer is about to wait for. */
export function reportRetryWait(w: RetryWait, now: number = Date.now()): void {
  const { sink, shownAt } = notices();
  if (!sink) return;
  const line = w.urn ?? "";
  if (now - (shownAt.get(line) ?? -Infinity) < MESSAGE_GAP_MS) return;
  shownAt.set(line, now);
  try {
    sink(waitMessage(w), w.urn);
  } catch {
    // A status message is never worth a failed request.
  }
}

/** Runs `fn` with its requests' waits reported on the resource `urn` (the plugin's resource calls). */
export function forResource<T>(urn: string | undefined, fn: () => T): T {
  return urn ? notices().urn.run(urn, fn) : fn();
}

/**
 * The resource of the call running now, read when a request is sent and carried with it: the
 * retry decisions run in undici's callbacks, whose async context is that of whichever call opened
 * the pooled connection, not of the request being retried.
 */
export function callingResource(): string | undefined {
  return notices().urn.getStore();
}

/** Where this process's reports go (tests give their own; the default is none). */
export function setWaitSink(sink: Sink | undefined): void {
  Object.assign(notices(), { sink, engine: undefined, tell: undefined, shownAt: new Map() });
}

/**
 * Sends the reports to the engine at `address` (host:port) as ephemeral status messages, and what
 * `tellEngine` says as lasting ones. The gRPC client is made with the first message: most runs
 * retry nothing and release nothing.
 */
export function reportWaitsToEngine(address: string): void {
  if (notices().engine === address) return; // each provider's configure asks again
  let log: EngineLog | undefined;
  setWaitSink((message, urn) => void (log ??= engineLog(address))(message, urn, true));
  notices().engine = address;
  notices().tell = (message, urn) => (log ??= engineLog(address))(message, urn, false);
}

/**
 * Says something the run's own output keeps: an info line of the resource whose call is running
 * (the plugin's resource calls), or of the stack (the dynamic provider host, which is not told).
 * Resolves once the engine has it (at most 5 s; at once with no engine): the step it is about
 * ends after it, so the line is shown with it. Never throws.
 */
export function tellEngine(message: string): Promise<void> {
  const tell = notices().tell;
  return tell ? tell(message, callingResource()).catch(() => undefined) : Promise.resolve();
}

type EngineLog = (message: string, urn: string | undefined, ephemeral: boolean) => Promise<void>;

function engineLog(address: string): EngineLog {
  // A client class of this package's grpc-js for the SDK's service definition, as the plugin's
  // server is made (server.ts): the credentials must come from the grpc-js copy that makes the
  // client, and the SDK's generated class is made by the SDK's copy, which may be another.
  const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
  const { EngineService } =
    require("@pulumi/pulumi/proto/engine_grpc_pb") as typeof import("@pulumi/pulumi/proto/engine_grpc_pb");
  const { LogRequest, LogSeverity } =
    require("@pulumi/pulumi/proto/engine_pb") as typeof import("@pulumi/pulumi/proto/engine_pb");
  const Engine = grpc.makeGenericClientConstructor(EngineService, "Engine");
  const client = new Engine(address, grpc.credentials.createInsecure());
  return (message, urn, ephemeral) => {
    const req = new LogRequest().setSeverity(LogSeverity.INFO).setMessage(message).setEphemeral(ephemeral);
    if (urn) req.setUrn(urn);
    return new Promise((resolve) => client.log(req, { deadline: Date.now() + 5_000 }, () => resolve()));
  };
}
