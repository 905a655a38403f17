/**
 * What the SearchIndex provider receives (after `check`) and what the stack stores of an index.
 */
import { z } from "zod";
import { tokenRotation } from "../rotation";
import { AVAILABLE_SEARCH_TYPES, SEARCH_REGIONS, SEARCH_TYPES, indexName, type Reported, type SearchRegion, type SearchType } from "../../api/schemas";

/** Inputs as the provider sees them after `check`. */
export const Inputs = z.object({
  /** Left out only with `adopt`: the adopted index keeps its name. */
  name: indexName.optional(),
  region: z.enum(SEARCH_REGIONS),
  type: z
    .enum(SEARCH_TYPES)
    .refine((t) => t !== "fixed", `"fixed" is not currently available; use one of ${AVAILABLE_SEARCH_TYPES.map((t) => `"${t}"`).join(", ")}`),
  adopt: z.string().min(1, "must not be empty (give an index id or name, or leave adopt out)").optional(),
  /** Set when `name` was not given: the generated name, which only this resource ever uses. */
  autoName: z.string().optional(),
  tokenRotation: tokenRotation.optional(),
});
export type Inputs = z.infer<typeof Inputs>;

/**
 * The index's tokens, stored as one secret output rather than two: the engine re-encrypts every
 * secret in state at each step of an `up` in which a new one appears, so each secret output costs
 * every resource's step again (docs/benchmarks.md). The class's `token` and `readOnlyToken` read
 * from it.
 */
export interface SearchIndexTokens {
  token: string;
  readOnlyToken?: string;
}

/**
 * What the stack stores of an index: what a program connects with and what `diff` and the
 * identity guard need. The record's other fields (plan limits, creation time, customer) are not
 * stored: the engine rewrites and re-encrypts the whole state after every step, so each stored
 * field is paid N times per `up`; they are read from the service when a program uses them
 * (`DETAILS`, the class's getters).
 */
export interface SearchIndexOutputs {
  name: string;
  /** The region asked for. */
  region: SearchRegion;
  type: Reported<SearchType>;
  deployedRegion: Reported<SearchRegion>;
  endpoint?: string;
  /** Secret. */
  tokens: SearchIndexTokens;
  autoName?: string;
  adopt?: string;
  /** An adopted index as it was before this stack changed it: what destroy gives back. */
  found?: FoundIndex;
  /** The identity that manages the index (identity.ts). */
  managedBy: string;
  /** The last `tokenRotation` value acted on (or recorded at create, which does not rotate). */
  tokenRotation?: string;
}

export interface FoundIndex {
  name: string;
  type: Reported<SearchType>;
}
