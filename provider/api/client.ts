/**
 * The one typed client of the service. Every resource, function and test talks to the API
 * through it: one verb class per API area (searchIndexes.ts, messagingAccounts.ts,
 * databases.ts, flowControl.ts, queues.ts, schedules.ts, signingKeys.ts, urlGroups.ts), each call described by the endpoint table (endpoints.ts), sent by
 * the request layer (http.ts), its answer checked against the zod schemas (schemas.ts), its
 * failure one of the error family (errors.ts), with every credential this client sent redacted
 * from what the service said.
 */
import { requireSetting, type Settings } from "../config";
import { ENDPOINTS, apiOf, type Api, type Endpoint, type EndpointName } from "./endpoints";
import { Databases } from "./databases";
import { z } from "zod";
import { UnauthorizedError, apiError, redactCredentials, serviceMessageOf } from "./errors";
import { FlowControl } from "./flowControl";
import { NoAnswer, send } from "./http";
import { MessagingAccounts } from "./messagingAccounts";
import { Queues } from "./queues";
import { Schedules } from "./schedules";
import { fillRoute, type CallOptions, type MessagingTarget } from "./request";
import { MESSAGING_REGIONS, describeIssues } from "./schemas";
import { SearchIndexes } from "./searchIndexes";
import { SigningKeys } from "./signingKeys";
import { UserError } from "../userError";
import { UrlGroups } from "./urlGroups";

export { closeAllPools } from "./http";
export type { MessagingTarget } from "./request";

export class MgmtClient {
  /** Search indexes (management API). */
  readonly searchIndexes = new SearchIndexes((name, options) => this.call(name, options));
  /** Messaging accounts and their budgets (management API). */
  readonly messagingAccounts = new MessagingAccounts((name, options) => this.call(name, options));
  /** Databases' budgets (management API). */
  readonly databases = new Databases((name, options) => this.call(name, options));

  constructor(readonly settings: Settings) {}

  /** One messaging account's flow control keys: its token (default mgmt:messagingToken) and region. */
  flowControl(target: MessagingTarget = {}): FlowControl {
    return new FlowControl((name, options) => this.call(name, options), target);
  }

  /** One messaging account's queues in one region. */
  queues(target: MessagingTarget & { region: string }): Queues {
    return new Queues((name, options) => this.call(name, options), target);
  }

  /** One messaging account's signing keys, at its region's address. */
  signingKeys(target: MessagingTarget & { region: string }): SigningKeys {
    return new SigningKeys((name, options) => this.call(name, options), target);
  }
  /** One messaging account's URL groups in one region. */
  urlGroups(target: MessagingTarget & { region: string }): UrlGroups {
    return new UrlGroups((name, options) => this.call(name, options), target);
  }
  /** One messaging account's schedules in one region. */
  schedules(target: MessagingTarget & { region: string }): Schedules {
    return new Schedules((name, options) => this.call(name, options), target);
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

  /**
   * The region of the account whose token one region's address refused, asked of the other
   * regions' addresses with a read (contract: a token is valid only in its account's region), so
   * that a declared region that is not the token's is named, not reported as a bad token.
   */
  private async regionOfToken(token: string | undefined, refusedIn: string | undefined): Promise<string | undefined> {
    for (const region of MESSAGING_REGIONS.filter((r) => r !== refusedIn)) {
      try {
        await this.call("getGlobalParallelism", { token, region, schema: z.unknown(), noRegionLookup: true });
        return region;
      } catch {
        // refused here too, or no answer: not this one, as far as can be told
      }
    }
    return undefined;
  }

  private baseFor(api: Api, region?: string): string {
    if (api === "management") return requireSetting(this.settings, "baseUrl", "reach the management API");
    if (api === "messaging") return requireSetting(this.settings, "messagingUrl", "reach the messaging API");
    if (!region || !(MESSAGING_REGIONS as readonly string[]).includes(region)) {
      throw new UserError(`region must be one of ${MESSAGING_REGIONS.join(", ")}, got "${region}"`);
    }
    return requireSetting(this.settings, "regionalMessagingUrl", "reach the regional messaging API").replace(
      "{region}",
      region,
    );
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
    return [
      value,
      decoded,
      s.password,
      s.username && s.password ? `${s.username}:${s.password}` : undefined,
      s.messagingToken,
    ].filter((v): v is string => !!v);
  }

  private async call<T>(name: EndpointName, options: CallOptions<T>): Promise<T> {
    const endpoint: Endpoint = ENDPOINTS[name];
    const api = apiOf(endpoint, options.region);
    const base = new URL(this.baseFor(api, options.region));
    const route = fillRoute(endpoint.route, options.params);
    const query = new URLSearchParams(
      Object.entries(options.query ?? {}).flatMap(([k, v]): [string, string][] =>
        v === undefined ? [] : [[k, String(v)]],
      ),
    ).toString();
    // Not through URL's pathname setter: it would undo fillRoute's encoding of "." and "..".
    const path = `${base.pathname.replace(/\/+$/, "")}${route}${query ? `?${query}` : ""}`;
    const headers: Record<string, string> = {
      ...options.headers,
      authorization: this.authorization(api, options.token),
      accept: "application/json",
    };
    const body = options.rawBody?.text ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers["content-type"] = options.rawBody?.contentType ?? "application/json";
    const s = this.settings;

    let answer;
    try {
      answer = await send(
        {
          origin: base.origin,
          path,
          label: `${endpoint.method} ${route}`,
          method: endpoint.method,
          headers,
          body,
          retry: endpoint.retry,
          timeoutMs: s.timeoutMs,
          totalTimeoutMs: s.totalTimeoutMs,
        },
        s,
      );
    } catch (err) {
      if (err instanceof NoAnswer) throw apiError(endpoint.method, route, api, undefined, undefined, err.code);
      throw err;
    }
    let json: unknown = undefined;
    try {
      json = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      json = undefined;
    }
    if (answer.status < 200 || answer.status >= 300) {
      // Redacted before the excerpt is cut (a cut could leave part of a credential) and after.
      const sent = this.credentialsSent(headers.authorization);
      const said = serviceMessageOf(json, redactCredentials(answer.text, sent));
      const err = apiError(
        endpoint.method,
        route,
        api,
        answer.status,
        said === undefined ? undefined : redactCredentials(said, sent),
      );
      if (!(err instanceof UnauthorizedError) || api !== "regional" || options.noRegionLookup) throw err;
      const tokenRegion = await this.regionOfToken(options.token, options.region);
      if (!tokenRegion) throw err;
      const told = err.about(
        `${endpoint.method} ${route} failed`,
        `401: the token is of an account in ${tokenRegion}, not ${options.region}, and a token is valid only in its account's region`,
      );
      told.tokenRegion = tokenRegion;
      throw told;
    }
    const parsed = options.schema.safeParse(json);
    if (!parsed.success) {
      throw apiError(
        endpoint.method,
        route,
        api,
        answer.status,
        `unexpected answer: ${describeIssues(parsed.error).join("; ")}`,
      );
    }
    return parsed.data;
  }
}
