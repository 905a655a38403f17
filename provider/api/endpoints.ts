/**
 * Every operation of the service, in one table: the client builds its requests from it and the
 * emulator registers its routes from it, so a path can never differ between the two.
 *
 * Operations marked `assumed` are not in the specification (contract.md "assumed"): when the real
 * service turns out to differ, this is the one line to change.
 */
export type Api = "management" | "messaging" | "regional";

/**
 * `create`: the request may have taken effect even when no answer arrived, so it is retried only
 * on answers that say it was not processed (429, 503). `idempotent`: safe to repeat after any
 * transient failure (the contract makes the flow control and queue POSTs idempotent).
 */
export type RetryClass = "create" | "idempotent";

export interface Endpoint {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly api: Api;
  /** Path after the API's base address, with `:param` placeholders. */
  readonly route: string;
  readonly retry: RetryClass;
  readonly assumed?: true;
}

export const ENDPOINTS = {
  createSearchIndex: { method: "POST", api: "management", route: "/v2/search", retry: "create" },
  getSearchIndex: { method: "GET", api: "management", route: "/v2/search/:id", retry: "idempotent" },
  listSearchIndexes: { method: "GET", api: "management", route: "/v2/search", retry: "idempotent" },
  renameSearchIndex: { method: "POST", api: "management", route: "/v2/search/:id/rename", retry: "idempotent", assumed: true },
  deleteSearchIndex: { method: "DELETE", api: "management", route: "/v2/search/:id", retry: "idempotent", assumed: true },
  listMessagingAccounts: { method: "GET", api: "management", route: "/v2/messaging/users", retry: "idempotent" },
  updateBudget: { method: "PATCH", api: "management", route: "/v2/messaging/update-budget/:id", retry: "idempotent" },
  getFlowControl: { method: "GET", api: "messaging", route: "/v2/flowControl/:key", retry: "idempotent" },
  resetRate: { method: "POST", api: "regional", route: "/v2/flowControl/:key/resetRate", retry: "idempotent" },
  pauseFlowControl: { method: "POST", api: "regional", route: "/v2/flowControl/:key/pause", retry: "idempotent" },
  resumeFlowControl: { method: "POST", api: "regional", route: "/v2/flowControl/:key/resume", retry: "idempotent", assumed: true },
  resumeQueue: { method: "POST", api: "regional", route: "/v2/queues/:queue/resume", retry: "idempotent" },
} as const satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINTS;

/** Fills `:param` placeholders, percent-encoding each value as one path segment. */
export function fillRoute(route: string, params: Record<string, string> = {}): string {
  return route.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`route ${route} needs parameter ${name}`);
    // encodeURIComponent leaves '.' alone: '..' would still climb a path level.
    return value === "." || value === ".." ? value.replace(/\./g, "%2E") : encodeURIComponent(value);
  });
}
