/**
 * The one typed client of the service. Every resource, function and test talks to the API
 * through it.
 *
 * - one keep-alive undici pool per origin per process (the dynamic provider host is one process
 *   for a whole `pulumi up`, so all resources share connections);
 * - retries by undici's RetryHandler, with our policy: which answers are safe to retry depends on
 *   the endpoint's retry class (endpoints.ts), delays honour `Retry-After` and add jitter;
 * - a per-attempt timeout (connect, headers, body) and a total timeout per operation.
 */
import { Dispatcher, Pool, interceptors } from "undici";
import { z } from "zod";
import { requireSetting, resolveSettings, type Settings } from "../config";
import { ENDPOINTS, fillRoute, type Api, type EndpointName, type RetryClass } from "./endpoints";
import { apiError, redactCredentials, serviceMessageOf } from "./errors";
import {
  CreateSearchIndexBody,
  FlowControlInfo,
  GlobalParallelism,
  MESSAGING_REGIONS,
  MessagingAccountRecord,
  OkBody,
  QueueRecord,
  SearchIndexRecord,
  UpsertQueueBody,
  type PinQuery,
  describeIssues,
  type MessagingRegion,
  type SearchType,
} from "./schemas";

/** Errors after which the request surely never reached the service. */
const NOT_SENT = ["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH"];
/**
 * Errors after which the request may have been processed. Not UND_ERR_BODY_TIMEOUT: it happens
 * only after the answer's headers, where undici's RetryHandler would "resume" the body by
 * sending the request again with a Range header, a POST included; `call` resends whole instead.
 */
const LOST = ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_CLOSED"];

/** What undici may resend on its own, per retry class (the table is in endpoints.ts). */
const RETRY_POLICY: Record<RetryClass, { methods: string[]; statusCodes: number[]; errorCodes: string[] }> = {
  create: { methods: ["POST"], statusCodes: [429], errorCodes: NOT_SENT },
  idempotent: { methods: ["GET", "POST", "PATCH", "DELETE"], statusCodes: [429, 500, 502, 503, 504], errorCodes: [...NOT_SENT, ...LOST] },
};

interface RetryState {
  state: { counter: number };
  opts: { method: string; retryOptions: { methods: string[]; statusCodes: number[]; errorCodes: string[]; maxRetries: number; minTimeout: number; maxTimeout: number; timeoutFactor: number } };
}

/** A rate limit is the service asking us to wait, not a failure: it gets more patience. */
const MAX_RATE_LIMITED_RETRIES = 60;

/**
 * undici's decision, with full jitter on the exponential backoff so that many resources retrying
 * at once do not hammer the service in lock step, and `Retry-After` taken as the floor.
 * 429 answers may be retried up to MAX_RATE_LIMITED_RETRIES times (the total timeout still
 * bounds the wait); every other failure up to maxRetries.
 */
function retryWithJitter(err: Error & { statusCode?: number; code?: string; headers?: Record<string, string | string[] | undefined> }, { state, opts }: RetryState, cb: (err?: Error | null) => void): void {
  const o = opts.retryOptions;
  const retryable = err.statusCode !== undefined ? o.statusCodes.includes(err.statusCode) : err.code !== undefined && o.errorCodes.includes(err.code);
  const limit = err.statusCode === 429 ? Math.max(o.maxRetries, MAX_RATE_LIMITED_RETRIES) : o.maxRetries;
  if (!retryable || !o.methods.includes(opts.method) || state.counter > limit) {
    cb(err);
    return;
  }
  const header = err.headers?.["retry-after"];
  const retryAfter = header === undefined ? NaN : Number(Array.isArray(header) ? header[0] : header);
  const retryAfterMs = Number.isFinite(retryAfter) ? retryAfter * 1000 : Date.parse(String(header)) - Date.now();
  const backoff = Math.min(o.maxTimeout, o.minTimeout * o.timeoutFactor ** Math.max(0, state.counter - 1));
  const delay = retryAfterMs > 0 ? Math.min(retryAfterMs, o.maxTimeout) * (1 + Math.random() * 0.1) : backoff * (0.5 + Math.random() * 0.5);
  setTimeout(() => cb(null), delay);
}

const pools = new Map<string, Dispatcher>();
function dispatcherFor(origin: string, settings: Settings): Dispatcher {
  const key = `${origin} ${settings.connectTimeoutMs}`;
  let dispatcher = pools.get(key);
  if (!dispatcher) {
    dispatcher = new Pool(origin, { connections: 16, keepAliveTimeout: 30_000, connect: { timeout: settings.connectTimeoutMs } }).compose(
      interceptors.retry({ retry: retryWithJitter as never, minTimeout: 250, maxTimeout: 30_000, timeoutFactor: 2, throwOnError: false }),
    );
    pools.set(key, dispatcher);
  }
  return dispatcher;
}

/** Closes every pool of this process (tests and short-lived scripts; providers just exit). */
export async function closeAllPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((d) => d.close()));
}

interface CallOptions<T> {
  params?: Record<string, string>;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  schema: z.ZodType<T>;
  /** Messaging APIs: the bearer token; defaults to mgmt:messagingToken. */
  token?: string;
  /** Regional messaging API: which region's address to use. */
  region?: string;
}

export class MgmtClient {
  constructor(readonly settings: Settings = resolveSettings()) {}

  // -- management API (endpoints 1-5 and the assumed rename and delete) -----------------------

  async createSearchIndex(body: CreateSearchIndexBody): Promise<SearchIndexRecord> {
    const parsed = CreateSearchIndexBody.safeParse(body);
    if (!parsed.success) throw new Error(`invalid search index: ${describeIssues(parsed.error).join("; ")}`);
    return this.call("createSearchIndex", { body: parsed.data, schema: SearchIndexRecord });
  }
  getSearchIndex(id: string): Promise<SearchIndexRecord> {
    return this.call("getSearchIndex", { params: { id }, schema: SearchIndexRecord });
  }
  listSearchIndexes(): Promise<SearchIndexRecord[]> {
    return this.call("listSearchIndexes", { schema: z.array(SearchIndexRecord) });
  }
  renameSearchIndex(id: string, name: string): Promise<void> {
    return this.call("renameSearchIndex", { params: { id }, body: { name }, schema: z.unknown() }).then(() => undefined);
  }
  setSearchIndexPlan(id: string, plan: SearchType): Promise<void> {
    return this.call("setSearchIndexPlan", { params: { id }, body: { target_plan: plan }, schema: z.unknown() }).then(() => undefined);
  }
  deleteSearchIndex(id: string): Promise<void> {
    return this.call("deleteSearchIndex", { params: { id }, schema: z.unknown() }).then(() => undefined);
  }
  listMessagingAccounts(): Promise<MessagingAccountRecord[]> {
    return this.call("listMessagingAccounts", { schema: z.array(MessagingAccountRecord) });
  }
  updateBudget(id: string, budget: number): Promise<void> {
    return this.call("updateBudget", { params: { id }, body: { budget }, schema: OkBody.or(z.unknown()) }).then(() => undefined);
  }

  // -- messaging API (endpoints 6-9 and the assumed lift of a pause) --------------------------

  getFlowControl(key: string, token?: string): Promise<FlowControlInfo> {
    return this.call("getFlowControl", { params: { key }, token, schema: FlowControlInfo });
  }
  resetRate(region: MessagingRegion, key: string, token?: string): Promise<void> {
    return this.call("resetRate", { params: { key }, region, token, schema: z.unknown() }).then(() => undefined);
  }
  pauseFlowControl(region: MessagingRegion, key: string, token?: string): Promise<void> {
    return this.call("pauseFlowControl", { params: { key }, region, token, schema: z.unknown() }).then(() => undefined);
  }
  resumeFlowControl(region: MessagingRegion, key: string, token?: string): Promise<void> {
    return this.call("resumeFlowControl", { params: { key }, region, token, schema: z.unknown() }).then(() => undefined);
  }
  resumeQueue(region: MessagingRegion, queue: string, token?: string): Promise<void> {
    return this.call("resumeQueue", { params: { queue }, region, token, schema: z.unknown() }).then(() => undefined);
  }

  // -- contract "Additions": pinned limits, queues, global parallelism --------------------------

  pinFlowControl(region: MessagingRegion, key: string, pin: PinQuery, token?: string): Promise<void> {
    return this.call("pinFlowControl", { params: { key }, query: pin, region, token, schema: z.unknown() }).then(() => undefined);
  }
  unpinFlowControl(region: MessagingRegion, key: string, parts: { parallelism?: boolean; rate?: boolean }, token?: string): Promise<void> {
    const query = { parallelism: parts.parallelism ? "true" : undefined, rate: parts.rate ? "true" : undefined };
    return this.call("unpinFlowControl", { params: { key }, query, region, token, schema: z.unknown() }).then(() => undefined);
  }
  getGlobalParallelism(token?: string): Promise<GlobalParallelism> {
    return this.call("getGlobalParallelism", { token, schema: GlobalParallelism });
  }
  upsertQueue(region: MessagingRegion, body: UpsertQueueBody, token?: string): Promise<void> {
    const parsed = UpsertQueueBody.safeParse(body);
    if (!parsed.success) throw new Error(`invalid queue: ${describeIssues(parsed.error).join("; ")}`);
    return this.call("upsertQueue", { body: parsed.data, region, token, schema: z.unknown() }).then(() => undefined);
  }
  getQueue(region: MessagingRegion, queue: string, token?: string): Promise<QueueRecord> {
    return this.call("getQueue", { params: { queue }, region, token, schema: QueueRecord });
  }
  listQueues(region: MessagingRegion, token?: string): Promise<QueueRecord[]> {
    return this.call("listQueues", { region, token, schema: z.array(QueueRecord) });
  }
  deleteQueue(region: MessagingRegion, queue: string, token?: string): Promise<void> {
    return this.call("deleteQueue", { params: { queue }, region, token, schema: z.unknown() }).then(() => undefined);
  }
  pauseQueue(region: MessagingRegion, queue: string, token?: string): Promise<void> {
    return this.call("pauseQueue", { params: { queue }, region, token, schema: z.unknown() }).then(() => undefined);
  }

  /**
   * Throws the ConfigError that a call to each of these APIs would, without sending anything:
   * `check` runs it so that a preview fails on a missing setting exactly when the `up` would.
   * `token` stands for a token the resource carries itself (mgmt:messagingToken is then not needed).
   */
  assertConfigured(apis: readonly Api[], token?: string): void {
    for (const api of apis) {
      this.baseFor(api, api === "regional" ? MESSAGING_REGIONS[0] : undefined);
      this.authorization(api, token);
    }
  }

  // -- plumbing --------------------------------------------------------------------------------

  private baseFor(api: Api, region?: string): string {
    if (api === "management") return requireSetting(this.settings, "baseUrl", "reach the management API");
    if (api === "messaging") return requireSetting(this.settings, "messagingUrl", "reach the messaging API");
    if (!region || !(MESSAGING_REGIONS as readonly string[]).includes(region)) {
      throw new Error(`region must be one of ${MESSAGING_REGIONS.join(", ")}, got "${region}"`);
    }
    return requireSetting(this.settings, "regionalMessagingUrl", "reach the regional messaging API").replace("{region}", region);
  }

  private authorization(api: Api, token?: string): string {
    if (api === "management") {
      const user = requireSetting(this.settings, "username", "authenticate to the management API");
      const password = requireSetting(this.settings, "password", "authenticate to the management API");
      return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
    }
    const bearer = token ?? requireSetting(this.settings, "messagingToken", "authenticate to the messaging API");
    return `Bearer ${bearer}`;
  }

  /** Every form in which a credential of this client can appear in an echo of its request. */
  private credentialsSent(authorization: string): string[] {
    const value = authorization.replace(/^(Basic|Bearer)\s+/i, "");
    const s = this.settings;
    const decoded = authorization.startsWith("Basic ") ? Buffer.from(value, "base64").toString("utf8") : undefined;
    return [value, decoded, s.password, s.username && s.password ? `${s.username}:${s.password}` : undefined, s.messagingToken].filter((v): v is string => !!v);
  }

  private async call<T>(name: EndpointName, options: CallOptions<T>): Promise<T> {
    const endpoint = ENDPOINTS[name];
    const base = new URL(this.baseFor(endpoint.api, options.region));
    const route = fillRoute(endpoint.route, options.params);
    const search = new URLSearchParams(Object.entries(options.query ?? {}).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]]))).toString();
    const path = `${base.pathname.replace(/\/+$/, "")}${route}${search ? `?${search}` : ""}`;
    const headers: Record<string, string> = { authorization: this.authorization(endpoint.api, options.token), accept: "application/json" };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    const policy = RETRY_POLICY[endpoint.retry];
    const s = this.settings;

    const signal = AbortSignal.timeout(s.totalTimeoutMs);
    let response: Dispatcher.ResponseData | undefined;
    let text = "";
    for (let bodyFailures = 0; ; bodyFailures++) {
      response = undefined;
      try {
        response = await dispatcherFor(base.origin, s).request({
          origin: base.origin,
          path,
          method: endpoint.method,
          headers,
          body,
          headersTimeout: s.timeoutMs,
          bodyTimeout: s.timeoutMs,
          signal,
          retryOptions: { ...policy, maxRetries: s.maxRetries },
        } as Dispatcher.RequestOptions);
        text = await response.body.text();
        break;
      } catch (err) {
        const e = err as Error & { code?: string; name: string };
        // undici's RetryHandler resends failures up to the answer's headers; an answer that
        // breaks off in its body (a stalled or cut body) it cannot resume. An idempotent request
        // is then sent again whole; a create is left to its caller's reconciliation.
        const bodyBroke = response !== undefined || e.code === "UND_ERR_REQ_RETRY";
        if (bodyBroke && endpoint.retry === "idempotent" && bodyFailures < s.maxRetries && !signal.aborted) {
          await new Promise((r) => setTimeout(r, 250 * 2 ** bodyFailures * (0.5 + Math.random() * 0.5)));
          continue;
        }
        const code = e.name === "TimeoutError" ? "total timeout" : e.code ?? e.name;
        throw apiError(endpoint.method, route, endpoint.api, undefined, undefined, code);
      }
    }

    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const status = response.statusCode;
    if (status < 200 || status >= 300) {
      // Redacted before the excerpt is cut (a cut could leave part of a credential) and after.
      const sent = this.credentialsSent(headers.authorization);
      const said = serviceMessageOf(json, redactCredentials(text, sent));
      throw apiError(endpoint.method, route, endpoint.api, status, said === undefined ? undefined : redactCredentials(said, sent));
    }
    const parsed = options.schema.safeParse(json);
    if (!parsed.success) {
      throw apiError(endpoint.method, route, endpoint.api, status, `unexpected answer: ${describeIssues(parsed.error).join("; ")}`);
    }
    return parsed.data;
  }
}
