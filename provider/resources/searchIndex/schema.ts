/**
 * What the SearchIndex provider receives (after `check`) and what the stack stores of an index.
 */
import { z } from "zod";
import { tokenRotation } from "../rotation";
import {
  AVAILABLE_SEARCH_TYPES,
  SEARCH_REGIONS,
  indexName,
  type Reported,
  type SearchRegion,
  type SearchType,
} from "../../api/schemas";

/** Inputs as the provider sees them after `check`; the descriptions are what users read (declare.ts). */
export const Inputs = z.object({
  name: indexName.optional().meta({
    description:
      "1 to 64 letters, digits, `-` and `_`. Default: the resource name plus a random suffix, chosen at the first `up` and kept (a preview shows it as known after apply); with `adopt`, the adopted index's own name, left as it is.",
  }),
  region: z.enum(SEARCH_REGIONS).meta({
    title: "SearchRegion",
    description: "Region to create the index in: `eu-west-1` or `us-central1`. Changing it replaces the index.",
  }),
  // Only what can be created is allowed (a bad value's message lists just these); the service's
  // third plan gets a line of its own.
  type: z
    .enum(AVAILABLE_SEARCH_TYPES, {
      error: (issue) =>
        issue.input === "fixed"
          ? `"fixed" is not currently available; use one of ${AVAILABLE_SEARCH_TYPES.map((t) => `"${t}"`).join(", ")}`
          : undefined,
    })
    .meta({
      title: "SearchIndexType",
      description: "Plan: `free` or `payg` (`fixed` is not currently available). Changes in place (set-plan).",
    }),
  adopt: z.string().min(1, "must not be empty (give an index id or name, or leave adopt out)").optional().meta({
    description:
      "Take over an existing index, by id or exact name, instead of creating one. Destroy releases an adopted index (it stays, with the name and plan it had when adopted) and never deletes it; removing `adopt` later hands the index to the stack, whose destroy then deletes it.",
  }),
  /** Set when `name` was not given: the generated name, which only this resource ever uses. */
  autoName: z.string().optional(),
  tokenRotation: tokenRotation.optional().meta({
    description:
      "Any value (a date, a ticket number). A value the index has not seen yet replaces both tokens in place (id, name, endpoint and data stay) and `token` / `readOnlyToken` change in the same `up`, so whatever consumes them is updated with them. Creating with a value does not rotate; removing the value does nothing.",
  }),
});
export type Inputs = z.infer<typeof Inputs>;

/**
 * The index's tokens, stored as one secret output rather than two: the engine re-encrypts every
 * secret in state at each step of an `up` in which a new one appears, so each secret output costs
 * every resource's step again (docs/benchmarks.md). The class's `token` and `readOnlyToken` read
 * from it.
 */
export const SearchIndexTokens = z.object({
  token: z.string().meta({ description: "The index's read-write token." }),
  readOnlyToken: z.string().optional().meta({ description: "The index's read-only token." }),
});
export type SearchIndexTokens = z.infer<typeof SearchIndexTokens>;

/** An adopted index as it was before this stack changed it: what destroy gives back. */
export const FoundIndex = z.object({ name: z.string(), type: z.string() as z.ZodType<Reported<SearchType>> });
export type FoundIndex = z.infer<typeof FoundIndex>;

/**
 * What the stack stores of an index: what a program connects with and what `diff` and the
 * identity guard need. The record's other fields (plan limits, creation time, customer) are not
 * stored: the engine rewrites and re-encrypts the whole state after every step, so each stored
 * field is paid N times per `up`; they are read from the service when a program uses them
 * (`DETAILS`, the class's getters). The descriptions and the `secret` mark are the plugin
 * schema's (provider/plugin/schema.ts).
 */
export const SearchIndexOutputs = z.object({
  name: z.string().meta({ description: "The index's name." }),
  region: z.enum(SEARCH_REGIONS).meta({ description: "The region asked for." }),
  type: (z.string() as z.ZodType<Reported<SearchType>>).meta({ description: "The plan, as the service reports it." }),
  deployedRegion: (z.string() as z.ZodType<Reported<SearchRegion>>).meta({
    description: "The region the service deployed the index in; may differ from `region`.",
  }),
  endpoint: z.string().optional().meta({ description: "The address a program connects to." }),
  tokens: SearchIndexTokens.meta({ description: "Both tokens, as stored (one secret output).", secret: true }),
  autoName: z.string().optional(),
  adopt: z.string().optional().meta({ description: "The id or name the index was adopted by." }),
  found: FoundIndex.optional().meta({
    description: "An adopted index as it was before this stack changed it: what destroy gives back.",
  }),
  managedBy: z
    .string()
    .meta({ description: "The identity that manages the index: `user@address` of the management API." }),
  tokenRotation: z
    .string()
    .optional()
    .meta({ description: "The last `tokenRotation` value acted on (or recorded at create, which does not rotate)." }),
});
export type SearchIndexOutputs = z.infer<typeof SearchIndexOutputs>;
