/**
 * The request layer: one keep-alive undici pool per origin per process, retried by undici's
 * RetryHandler with our policy. It knows nothing of endpoints, credentials or schemas (client.ts).
 *
 * - which failures may be resent depends on the endpoint's retry class (endpoints.ts);
 * - delays grow exponentially with full jitter, so that many resources retrying at once do not
 *   hammer the service in lock step, and honour `Retry-After`;
 * - answers are read whole below the retry handler (`wholeAnswers`), so that an answer whose body
 *   stalls or breaks off is one more failure for the same retry policy, never a half-read answer;
 * - a per-attempt timeout (connect, headers, body) and a total timeout per operation.
 *
 * undici is required with the first request, not imported: the `mgmt` plugin starts on every
 * engine run and serves checks and diffs, which send nothing (test/unit/pluginServer.test.ts checks
 * what its start and its first request load).
 */
import { Buffer } from "node:buffer";
import type * as Undici from "undici";
import type { Dispatcher, Pool, interceptors } from "undici";
import type { RetryClass } from "./endpoints";
import { processState } from "../processState";
import { callingResource, reportRetryWait } from "../waitNotice";
import { MgmtError, UserError } from "../userError";

/** Errors after which the request surely never reached the service. */
const NOT_SENT = ["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH"];
/** Errors after which the request may have been processed: a stalled or cut answer included. */
const LOST = [
  "ECONNRESET",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
];

/** What may be resent, per retry class (the table is in endpoints.ts). */
const RETRY_POLICY: Record<
  RetryClass,
  { methods: Dispatcher.HttpMethod[]; statusCodes: number[]; errorCodes: string[] }
> = {
  create: { methods: ["POST"], statusCodes: [429], errorCodes: NOT_SENT },
  idempotent: {
    methods: ["GET", "POST", "PATCH", "DELETE"],
    statusCodes: [429, 500, 502, 503, 504],
    errorCodes: [...NOT_SENT, ...LOST],
  },
};

/** A rate limit is the service asking us to wait, not a failure: it gets more patience. */
const MAX_RATE_LIMITED_RETRIES = 60;

type RetryCallback = NonNullable<Parameters<typeof interceptors.retry>[0]>["retry"] & {};

/**
 * undici's decision with full jitter on the exponential backoff and `Retry-After` as the floor.
 * 429 answers may be retried up to MAX_RATE_LIMITED_RETRIES times (the total timeout still
 * bounds the wait); every other failure up to maxRetries.
 */
const retryWithJitter: RetryCallback = (err, { state, opts }, cb) => {
  const e = err as Error & {
    statusCode?: number;
    code?: string;
    headers?: Record<string, string | string[] | undefined>;
  };
  // The run was cancelled: an answer that came is final, no retry is sent.
  const stop = runStop().signal;
  if (stop.aborted) {
    cb(stop.reason);
    return;
  }
  const o = opts.retryOptions!;
  const retryable =
    e.statusCode !== undefined
      ? !!o.statusCodes?.includes(e.statusCode)
      : e.code !== undefined && !!o.errorCodes?.includes(e.code);
  const maxRetries = o.maxRetries ?? 0;
  const limit = e.statusCode === 429 ? Math.max(maxRetries, MAX_RATE_LIMITED_RETRIES) : maxRetries;
  if (!retryable || !o.methods?.includes(opts.method) || state.counter > limit) {
    cb(err);
    return;
  }
  const header = e.headers?.["retry-after"];
  const retryAfter = header === undefined ? NaN : Number(Array.isArray(header) ? header[0] : header);
  const retryAfterMs = Number.isFinite(retryAfter) ? retryAfter * 1000 : Date.parse(String(header)) - Date.now();
  const maxTimeout = o.maxTimeout ?? 30_000;
  const backoff = Math.min(
    maxTimeout,
    (o.minTimeout ?? 250) * (o.timeoutFactor ?? 2) ** Math.max(0, state.counter - 1),
  );
  const delay =
    retryAfterMs > 0
      ? Math.min(retryAfterMs, maxTimeout) * (1 + Math.random() * 0.1)
      : backoff * (0.5 + Math.random() * 0.5);
  // The resource's line in the engine's progress says what it waits for (waitNotice.ts).
  const { label, urn } = (opts as WaitNoticeOptions).waitNotice ?? { label: opts.method };
  reportRetryWait({
    request: label,
    reason:
      e.statusCode === 429
        ? "rate limited (429)"
        : e.statusCode !== undefined
          ? `answered ${e.statusCode}`
          : `no answer (${e.code})`,
    retry: state.counter,
    of: limit,
    delayMs: delay,
    urn,
  });
  // A cancel during the wait ends it: the retry is never sent.
  const cancelled = () => {
    clearTimeout(timer);
    cb(stop.reason);
  };
  const timer = setTimeout(() => {
    stop.removeEventListener("abort", cancelled);
    cb(null);
  }, delay);
  stop.addEventListener("abort", cancelled, { once: true });
};

/**
 * What a retry's report names, carried in the request's options (undici hands them to the retry
 * callback as they are): the resource is read when the request is sent, since the callback runs
 * in the async context of whichever call opened the pooled connection (waitNotice.ts).
 */
type WaitNoticeOptions = Dispatcher.RequestOptions & { waitNotice?: { label: string; urn?: string } };

type Controller = Dispatcher.DispatchController;
type Handler = Dispatcher.DispatchHandler;

/**
 * Holds an answer back until its body is complete, then replays it to the handler above (the
 * retry handler), honouring its pause while it decides whether to retry a status. A body that
 * stalls or breaks off reaches the retry handler as an error before any headers, so undici
 * resends it by the endpoint's policy; left to itself, it would "resume" the body with a Range
 * header, which this API does not serve.
 */
class WholeAnswer implements Handler {
  private status = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private statusMessage = "";
  private readonly chunks: Buffer[] = [];
  /** Set once the complete answer is being handed on: an abort then ends the replay. */
  private replay?: { abort(reason: Error): void };

  constructor(private readonly handler: Handler) {}

  onRequestStart(controller: Controller, context: unknown): void {
    // An abort (the total timeout) that arrives while the retry handler waits on a replayed
    // answer must end the wait: the request below is complete, and would ignore it.
    const routed: Controller = {
      pause: () => controller.pause(),
      resume: () => controller.resume(),
      abort: (reason: Error) => (this.replay ? this.replay.abort(reason) : controller.abort(reason)),
      get paused() {
        return controller.paused;
      },
      get aborted() {
        return controller.aborted;
      },
      get reason() {
        return controller.reason;
      },
    };
    this.handler.onRequestStart?.(routed, context);
  }
  onResponseStart(
    _c: Controller,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
    statusMessage?: string,
  ): void {
    this.status = statusCode;
    this.headers = headers;
    this.statusMessage = statusMessage ?? "";
  }
  onResponseData(_c: Controller, chunk: Buffer): void {
    this.chunks.push(chunk);
  }
  onResponseEnd(_upstream: Controller, trailers: Record<string, string | string[] | undefined>): void {
    const steps = [
      (c: Controller) => this.handler.onResponseStart?.(c, this.status, this.headers, this.statusMessage),
      (c: Controller) => this.chunks.length > 0 && this.handler.onResponseData?.(c, Buffer.concat(this.chunks)),
      (c: Controller) => this.handler.onResponseEnd?.(c, trailers),
    ];
    let paused = false;
    let abortedBy: Error | null = null;
    const run = () => {
      while (!paused && steps.length > 0) steps.shift()!(replay);
    };
    const replay: Controller = {
      pause: () => void (paused = true),
      resume: () => {
        if (!paused) return;
        paused = false;
        run();
      },
      abort: (reason: Error) => {
        if (abortedBy || steps.length === 0) return;
        abortedBy = reason;
        steps.length = 0;
        this.handler.onResponseError?.(replay, reason);
      },
      get paused() {
        return paused;
      },
      get aborted() {
        return abortedBy !== null;
      },
      get reason() {
        return abortedBy;
      },
    };
    this.replay = replay;
    run();
  }
  onResponseError(controller: Controller, err: Error): void {
    this.handler.onResponseError?.(controller, err);
  }
}

const wholeAnswers: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) =>
  dispatch(opts, new WholeAnswer(handler));

export interface Transport {
  connectTimeoutMs: number;
  maxRetries: number;
}

/**
 * What the request layer uses of undici, from the modules that hold it: the package's index loads
 * all of undici (fetch, WebSocket, mocks, caches: about 110 modules, 0.19 s of CPU here) where
 * these need 27 (0.07 s), in every provider process that sends a request. `request` is the method
 * the index adds to every dispatcher, called on ours. They are the index's own
 * (test/unit/pluginServer.test.ts); those modules are undici's internals, so a release that moves
 * or reshapes them gets the index instead. Required once per process, at its first request.
 */
function undiciParts(): UndiciParts {
  if (parts) return parts;
  try {
    const deep: UndiciParts = {
      Pool: require("undici/lib/dispatcher/pool"),
      retry: require("undici/lib/interceptor/retry"),
      request: require("undici/lib/api/api-request"),
    };
    if (Object.values(deep).every((f) => typeof f === "function")) return (parts = deep);
  } catch {
    // Moved: the index below.
  }
  const undici = require("undici") as typeof Undici;
  return (parts = {
    Pool: undici.Pool,
    retry: undici.interceptors.retry,
    request: undici.Dispatcher.prototype.request,
  });
}
interface UndiciParts {
  Pool: typeof Undici.Pool;
  retry: typeof Undici.interceptors.retry;
  request: RequestMethod;
}
let parts: UndiciParts | undefined;
type RequestMethod = (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

const dispatchers = new Map<string, Dispatcher>();

function dispatcherFor(origin: string, retry: RetryClass, t: Transport): Dispatcher {
  const key = `${origin} ${retry} ${t.connectTimeoutMs} ${t.maxRetries}`;
  let dispatcher = dispatchers.get(key);
  if (!dispatcher) {
    // One pool per origin, whatever the retry class, so that all calls share its connections.
    const poolKey = `${origin} ${t.connectTimeoutMs}`;
    const { Pool, retry: retryInterceptor } = undiciParts();
    const pool = (pools.get(poolKey) ??
      pools
        .set(
          poolKey,
          new Pool(origin, { connections: 16, keepAliveTimeout: 30_000, connect: { timeout: t.connectTimeoutMs } }),
        )
        .get(poolKey))!;
    dispatcher = pool.compose(
      wholeAnswers,
      retryInterceptor({
        ...RETRY_POLICY[retry],
        maxRetries: t.maxRetries,
        retry: retryWithJitter,
        minTimeout: 250,
        maxTimeout: 30_000,
        timeoutFactor: 2,
        throwOnError: false,
      }),
    );
    dispatchers.set(key, dispatcher);
  }
  return dispatcher;
}
const pools = new Map<string, Pool>();

/** Closes every pool of this process (tests and short-lived scripts; providers just exit). */
export async function closeAllPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  dispatchers.clear();
  await Promise.all(all.map((p) => p.close()));
}

export interface HttpRequest {
  origin: string;
  /** Path and query, sent as they are (already encoded). */
  path: string;
  /** The request as messages name it: method and route, as the final error does (errors.ts). */
  label: string;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string;
  retry: RetryClass;
  /** Per attempt: the wait for the answer's headers, and between chunks of its body. */
  timeoutMs: number;
  /** The whole operation, retries included. */
  totalTimeoutMs: number;
}

export interface HttpAnswer {
  status: number;
  text: string;
}

/**
 * The transport failure of a request that got no answer: undici's code, or "total timeout". It
 * never reaches a user: the client turns it into the AmbiguousError of the call.
 */
export class NoAnswer extends MgmtError {
  constructor(readonly code: string) {
    super(`no answer (${code})`);
  }
}

/** The run is over: what a request sent after, or waiting out a backoff at, the engine's Cancel fails with. */
export class RunStopped extends UserError {
  override readonly name = "RunStopped";
}

/** Aborted at the engine's Cancel; process-wide (processState.ts), as the run is. */
const runStop = () => processState("runStop", () => new AbortController());

/**
 * The engine cancelled the run (Ctrl-C, a stopped update): a retry waiting out a backoff or a
 * Retry-After is never sent, and no new request is. A request already sent keeps its answer: the
 * engine waits for the operations in flight, and abandoning one would make its outcome unknown.
 */
export function stopSending(): void {
  runStop().abort(
    new RunStopped(
      "the operation was cancelled (Ctrl-C or a stopped update): nothing more was sent to the service; run it again to finish",
    ),
  );
}

/** Sends one request, retried by its class's policy; an answer of any status is returned. */
export async function send(req: HttpRequest, t: Transport): Promise<HttpAnswer> {
  const stop = runStop().signal;
  if (stop.aborted) throw stop.reason;
  try {
    const options: WaitNoticeOptions = {
      origin: req.origin,
      path: req.path,
      method: req.method,
      headers: req.headers,
      body: req.body,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      signal: AbortSignal.timeout(req.totalTimeoutMs),
      waitNotice: { label: req.label, urn: callingResource() },
    };
    const response = await undiciParts().request.call(dispatcherFor(req.origin, req.retry, t), options);
    const text = await response.body.text();
    // A failure the cancel kept from being retried (undici hands back the last answer): say so.
    if (stop.aborted && (response.statusCode === 429 || response.statusCode >= 500)) throw stop.reason;
    return { status: response.statusCode, text };
  } catch (err) {
    if (err === stop.reason) throw err;
    const e = err as Error & { code?: string };
    throw new NoAnswer(e.name === "TimeoutError" ? "total timeout" : (e.code ?? e.name));
  }
}
