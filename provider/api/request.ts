import type { z } from "zod";
import type { EndpointName } from "./endpoints";
import { InternalError } from "../userError";

/** One call of an endpoint of the table (endpoints.ts), as the per-area verbs describe it. */
export interface CallOptions<T> {
  params?: Record<string, string>;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A body sent as it is, with its own content type (a schedule's message), instead of JSON. */
  rawBody?: { text: string; contentType: string };
  /** Headers of this call beside authorization (a schedule's `Upstash-*` settings). */
  headers?: Record<string, string>;
  /** What a 2xx answer must look like. */
  schema: z.ZodType<T>;
  /** Messaging APIs: the account's bearer token; defaults to mgmt:messagingToken. */
  token?: string;
  /** Regional messaging API: which region's address to use. */
  region?: string;
  /** A refused token is not looked up in the other regions (that lookup's own calls). */
  noRegionLookup?: true;
}

/** What the per-area verbs call: MgmtClient's `call`. */
export type Call = <T>(name: EndpointName, options: CallOptions<T>) => Promise<T>;

/** The messaging account a messaging call acts for: its token (default mgmt:messagingToken) and region. */
export interface MessagingTarget {
  /** The account's token; defaults to mgmt:messagingToken. */
  token?: string;
  /** The account's region: needed by the regional endpoints (pause, pin, queues...). */
  region?: string;
}

/**
 * Fills `:param` placeholders, percent-encoding each value as one path segment. (Here, not in
 * endpoints.ts: the emulator reads that table, and this needs the error family, which needs the
 * Pulumi SDK.)
 */
export function fillRoute(route: string, params: Record<string, string> = {}): string {
  return route.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new InternalError(`route ${route} needs parameter ${name}`);
    // encodeURIComponent leaves '.' alone: '..' would still climb a path level.
    return value === "." || value === ".." ? value.replace(/\./g, "%2E") : encodeURIComponent(value);
  });
}
