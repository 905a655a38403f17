/**
 * What a resource waits for while its request is retried, shown on its line of the engine's
 * progress. A refused connection, a 503 or a rate limit can hold an operation for seconds to
 * minutes (maxRetries, totalTimeoutMs); without a word the user sees only "creating (40s)".
 *
 * The request layer (api/http.ts) reports each retry it decides on; a provider process that knows
 * its engine (the plugin, the dynamic provider host) passes it on as an ephemeral status message
 * (the engine's Log call): shown beside the resource while it waits, replaced by the next one,
 * never kept in the output or the state. The plugin knows which resource a call is for (its URN);
 * the dynamic provider host is not told, and the engine shows its messages on the stack's line.
 *
 * The message names the request (method and path, as the final error does) and the failure (a
 * status code or an error code), never a header or the service's text. Reporting never throws
 * and never waits: an engine that is gone only loses the message.
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
    urn: new AsyncLocalStorage<string>(),
  }));

/** Reports a retry the request layer is about to wait for. */
export function reportRetryWait(w: RetryWait): void {
  const { sink } = notices();
  if (!sink) return;
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
  Object.assign(notices(), { sink, engine: undefined });
}

/**
 * Sends the reports to the engine at `address` (host:port) as ephemeral status messages. The
 * gRPC client is made with the first report: most runs retry nothing.
 */
export function reportWaitsToEngine(address: string): void {
  if (notices().engine === address) return; // each provider's configure asks again
  let log: ((message: string, urn: string | undefined) => void) | undefined;
  setWaitSink((message, urn) => {
    log ??= engineLog(address);
    log(message, urn);
  });
  notices().engine = address;
}

function engineLog(address: string): (message: string, urn: string | undefined) => void {
  // This package's grpc-js with the SDK's service definition, as the plugin's server is made
  // (server.ts): the SDK's own client class would bring the SDK's copy of grpc-js.
  const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
  const { EngineService } =
    require("@pulumi/pulumi/proto/engine_grpc_pb") as typeof import("@pulumi/pulumi/proto/engine_grpc_pb");
  const { LogRequest, LogSeverity } =
    require("@pulumi/pulumi/proto/engine_pb") as typeof import("@pulumi/pulumi/proto/engine_pb");
  const Engine = grpc.makeGenericClientConstructor(EngineService, "Engine");
  const client = new Engine(address, grpc.credentials.createInsecure());
  return (message, urn) => {
    const req = new LogRequest().setSeverity(LogSeverity.INFO).setMessage(message).setEphemeral(true);
    if (urn) req.setUrn(urn);
    client.log(req, { deadline: Date.now() + 5_000 }, () => undefined);
  };
}
