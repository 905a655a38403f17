import type { z } from "zod";
import type { EndpointName } from "./endpoints";

/** One call of an endpoint of the table (endpoints.ts), as the per-area verbs describe it. */
export interface CallOptions<T> {
  params?: Record<string, string>;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | undefined>;
  body?: unknown;
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
