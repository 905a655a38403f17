/**
 * Every operation of the service, in one table: the client builds its requests from it and the
 * emulator registers its routes from it, so a path can never differ between the two.
 *
 * Operations marked `assumed` are not in the specification (contract.md "assumed"): when the real
 * service turns out to differ, this is the one line to change.
 */
export type Api = "management" | "messaging" | "regional";

/**
 * Which answers make it safe to send a request again. An ambiguous answer (a 5xx, a dropped
 * connection, a timeout) is not proof that nothing happened: the service may have committed.
 *
 * - `create`: sending again after a commit would fail (409) or, for a service without unique
 *   names, duplicate. Resent automatically only when the request surely was not processed (429,
 *   or a connection that never opened); after any other failure the caller reconciles first
 *   (looks the object up by name) and only then sends again.
 * - `idempotent`: the request sets an absolute state, so a second delivery after a commit leaves
 *   the same result; resent after every transient failure.
 *
 * | operation            | class      | why a resend after a commit is harmless                          |
 * |----------------------|------------|------------------------------------------------------------------|
 * | create index         | create     | not harmless: reconcile by name (resources/searchIndex/operations.ts)|
 * | get / list (all)     | idempotent | reads                                                            |
 * | rename index         | idempotent | sets the name to a value; renaming to the current name is 200    |
 * | set plan             | idempotent | sets the plan to a value; the current plan again is 200          |
 * | delete index         | idempotent | the second delivery answers 404, which delete reads as done      |
 * | update budget        | idempotent | PATCH with the absolute budget                                   |
 * | pause / resume key   | idempotent | contract: pausing a paused key succeeds and changes nothing      |
 * | resume queue         | idempotent | contract: resuming a running queue succeeds and changes nothing  |
 * | reset rate           | idempotent | two resets moments apart leave the same state as one: counters 0 |
 * | pin / unpin key      | idempotent | sets absolute limits; a second pin only restarts the period again |
 * | upsert queue         | idempotent | carries the queue's full desired state, never a delta            |
 * | pause queue          | idempotent | contract: pausing a paused queue succeeds and changes nothing    |
 * | delete queue         | idempotent | the second delivery answers 404, which delete reads as done      |
 * | add group endpoints  | idempotent | a URL is its endpoint's identity: adding it again sets its name  |
 * | remove group endpts  | idempotent | an endpoint gone is skipped; a group gone is 404, read as done   |
 * | delete URL group     | idempotent | the second delivery answers 404, which delete reads as done      |
 * | create schedule      | create     | not harmless alone: reconcile by GET of the id this package chose, then resend (it replaces in place) |
 * | pause/resume schedule| idempotent | contract: either on a schedule already in that state changes nothing |
 * | delete schedule      | idempotent | the second delivery answers 404, which delete reads as done      |
 * | reset index tokens   | create     | not harmless: read the tokens back and compare (searchIndex)     |
 * | rotate account token | create     | not harmless: read the account back and compare (messagingAccount)|
 * | set account plan     | idempotent | sets the plan to a value; the current plan again changes nothing |
 * | enable/disable pack  | idempotent | contract: doing either twice succeeds and changes nothing        |
 * | database budget      | idempotent | PATCH with the absolute budget                                   |
 * | stats, ipv4, lists   | idempotent | reads                                                            |
 * | rotate signing keys  | create     | not harmless: read the keys back and compare (messagingSigningKeys)|
 */
export type RetryClass = "create" | "idempotent";

export interface Endpoint {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly api: Api;
  /** Path after the API's base address, with `:param` placeholders. */
  readonly route: string;
  readonly retry: RetryClass;
  readonly assumed?: true;
  /**
   * A read of the region-less messaging API that the regional addresses answer too (contract:
   * "where the service's own clients send them"). The client sends it to the regional address
   * whenever it knows the account's region: there a token of an account in another region is
   * refused (401) instead of read from, so a declared region that is not the token's shows.
   */
  readonly regionalToo?: true;
}

export const ENDPOINTS = {
  createSearchIndex: { method: "POST", api: "management", route: "/v2/search", retry: "create" },
  getSearchIndex: { method: "GET", api: "management", route: "/v2/search/:id", retry: "idempotent" },
  listSearchIndexes: { method: "GET", api: "management", route: "/v2/search", retry: "idempotent" },
  setSearchIndexPlan: {
    method: "POST",
    api: "management",
    route: "/v2/search/:id/setplan",
    retry: "idempotent",
    assumed: true,
  },
  renameSearchIndex: {
    method: "POST",
    api: "management",
    route: "/v2/search/:id/rename",
    retry: "idempotent",
    assumed: true,
  },
  deleteSearchIndex: {
    method: "DELETE",
    api: "management",
    route: "/v2/search/:id",
    retry: "idempotent",
    assumed: true,
  },
  listMessagingAccounts: { method: "GET", api: "management", route: "/v2/messaging/users", retry: "idempotent" },
  updateBudget: { method: "PATCH", api: "management", route: "/v2/messaging/update-budget/:id", retry: "idempotent" },
  getFlowControl: {
    method: "GET",
    api: "messaging",
    route: "/v2/flowControl/:key",
    retry: "idempotent",
    regionalToo: true,
  },
  resetRate: { method: "POST", api: "regional", route: "/v2/flowControl/:key/resetRate", retry: "idempotent" },
  pauseFlowControl: { method: "POST", api: "regional", route: "/v2/flowControl/:key/pause", retry: "idempotent" },
  resumeFlowControl: {
    method: "POST",
    api: "regional",
    route: "/v2/flowControl/:key/resume",
    retry: "idempotent",
    assumed: true,
  },
  resumeQueue: { method: "POST", api: "regional", route: "/v2/queues/:queue/resume", retry: "idempotent" },
  pinFlowControl: {
    method: "POST",
    api: "regional",
    route: "/v2/flowControl/:key/pin",
    retry: "idempotent",
    assumed: true,
  },
  unpinFlowControl: {
    method: "POST",
    api: "regional",
    route: "/v2/flowControl/:key/unpin",
    retry: "idempotent",
    assumed: true,
  },
  getGlobalParallelism: {
    method: "GET",
    api: "messaging",
    route: "/v2/globalParallelism",
    retry: "idempotent",
    assumed: true,
    regionalToo: true,
  },
  upsertQueue: { method: "POST", api: "regional", route: "/v2/queues", retry: "idempotent", assumed: true },
  getQueue: { method: "GET", api: "regional", route: "/v2/queues/:queue", retry: "idempotent", assumed: true },
  listQueues: { method: "GET", api: "regional", route: "/v2/queues", retry: "idempotent", assumed: true },
  deleteQueue: { method: "DELETE", api: "regional", route: "/v2/queues/:queue", retry: "idempotent", assumed: true },
  pauseQueue: { method: "POST", api: "regional", route: "/v2/queues/:queue/pause", retry: "idempotent", assumed: true },
  // contract "Schedules, URL groups and signing keys": URL groups are the API's topics
  addUrlGroupEndpoints: {
    method: "POST",
    api: "regional",
    route: "/v2/topics/:group/endpoints",
    retry: "idempotent",
    assumed: true,
  },
  removeUrlGroupEndpoints: {
    method: "DELETE",
    api: "regional",
    route: "/v2/topics/:group/endpoints",
    retry: "idempotent",
    assumed: true,
  },
  getUrlGroup: { method: "GET", api: "regional", route: "/v2/topics/:group", retry: "idempotent", assumed: true },
  listUrlGroups: { method: "GET", api: "regional", route: "/v2/topics", retry: "idempotent", assumed: true },
  deleteUrlGroup: { method: "DELETE", api: "regional", route: "/v2/topics/:group", retry: "idempotent", assumed: true },
  // contract "Schedules, URL groups and signing keys"
  createSchedule: {
    method: "POST",
    api: "regional",
    route: "/v2/schedules/:destination",
    retry: "create",
    assumed: true,
  },
  getSchedule: {
    method: "GET",
    api: "regional",
    route: "/v2/schedules/:scheduleId",
    retry: "idempotent",
    assumed: true,
  },
  listSchedules: { method: "GET", api: "regional", route: "/v2/schedules", retry: "idempotent", assumed: true },
  deleteSchedule: {
    method: "DELETE",
    api: "regional",
    route: "/v2/schedules/:scheduleId",
    retry: "idempotent",
    assumed: true,
  },
  pauseSchedule: {
    method: "POST",
    api: "regional",
    route: "/v2/schedules/:scheduleId/pause",
    retry: "idempotent",
    assumed: true,
  },
  resumeSchedule: {
    method: "POST",
    api: "regional",
    route: "/v2/schedules/:scheduleId/resume",
    retry: "idempotent",
    assumed: true,
  },
  // contract "The rest of the named operations" and "Flow control keys before their first message"
  resetSearchIndexTokens: {
    method: "POST",
    api: "management",
    route: "/v2/search/:id/reset-password",
    retry: "create",
    assumed: true,
  },
  getSearchIndexStats: {
    method: "GET",
    api: "management",
    route: "/v2/search/:id/stats",
    retry: "idempotent",
    assumed: true,
  },
  getSearchStats: { method: "GET", api: "management", route: "/v2/search/stats", retry: "idempotent", assumed: true },
  getMessagingAccount: {
    method: "GET",
    api: "management",
    route: "/v2/messaging/user/:id",
    retry: "idempotent",
    assumed: true,
  },
  rotateMessagingToken: {
    method: "POST",
    api: "management",
    route: "/v2/messaging/rotate-token/:id",
    retry: "create",
    assumed: true,
  },
  setMessagingPlan: {
    method: "POST",
    api: "management",
    route: "/v2/messaging/set-plan/:id",
    retry: "idempotent",
    assumed: true,
  },
  enableProdPack: {
    method: "POST",
    api: "management",
    route: "/v2/messaging/enable-prodpack/:id",
    retry: "idempotent",
    assumed: true,
  },
  disableProdPack: {
    method: "POST",
    api: "management",
    route: "/v2/messaging/disable-prodpack/:id",
    retry: "idempotent",
    assumed: true,
  },
  getMessagingStats: {
    method: "GET",
    api: "management",
    route: "/v2/messaging/stats/:id",
    retry: "idempotent",
    assumed: true,
  },
  getMessagingIpv4: {
    method: "GET",
    api: "management",
    route: "/v2/messaging/ipv4",
    retry: "idempotent",
    assumed: true,
  },
  updateDatabaseBudget: {
    method: "PATCH",
    api: "management",
    route: "/v2/redis/update-budget/:id",
    retry: "idempotent",
    assumed: true,
  },
  getDatabase: {
    method: "GET",
    api: "management",
    route: "/v2/redis/database/:id",
    retry: "idempotent",
    assumed: true,
  },
  listDatabases: { method: "GET", api: "management", route: "/v2/redis/databases", retry: "idempotent", assumed: true },
  listFlowControlKeys: {
    method: "GET",
    api: "messaging",
    route: "/v2/flowControl",
    retry: "idempotent",
    assumed: true,
    regionalToo: true,
  },
  // contract "Schedules, URL groups and signing keys": the account's signing keys
  getSigningKeys: { method: "GET", api: "regional", route: "/v2/keys", retry: "idempotent", assumed: true },
  rotateSigningKeys: { method: "POST", api: "regional", route: "/v2/keys/rotate", retry: "create", assumed: true },
} as const satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINTS;

/** The API a call of `endpoint` goes to: a `regionalToo` read goes to the region's address when the region is known. */
export function apiOf(endpoint: Endpoint, region: string | undefined): Api {
  return endpoint.regionalToo && region !== undefined ? "regional" : endpoint.api;
}
