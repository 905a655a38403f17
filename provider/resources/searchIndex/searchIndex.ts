/**
 * SearchIndex: the declaration a program uses (args, outputs, class). What the engine does with
 * it is in operations.ts.
 */
import { randomBytes } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { ifFound } from "../../api/errors";
import type { Reported, SearchRegion, SearchType } from "../../api/schemas";
import { getSearchIndex, type GetSearchIndexResult } from "../../functions/getSearchIndex";
import { providerFor } from "../dynamicDoor";
import { searchIndex } from "./declaration";
import type { SearchIndexOutputs, SearchIndexTokens } from "./schema";

export type { SearchIndexOutputs, SearchIndexTokens } from "./schema";

/** Descriptions: the inputs' schema (schema.ts), written onto the compiled declaration (scripts/argDocs.ts). */
export interface SearchIndexArgs {
  name?: pulumi.Input<string>;
  region: pulumi.Input<SearchRegion>;
  type: pulumi.Input<SearchType>;
  adopt?: pulumi.Input<string>;
  tokenRotation?: pulumi.Input<string>;
}

/**
 * Pulumi's convention: the resource name plus a random suffix. Random, not derived from project
 * and stack names: two people's `dev` stacks of one project on their own backends would derive
 * the same name and share (then delete) one index. `check` keeps the name a resource already has,
 * so only a resource's first `up` draws one; the pending create Pulumi records before calling us
 * holds it, which is how an interrupted `up` is recovered without a duplicate
 * (automation/recovery.ts `recoverPendingCreates`).
 */
export function randomAutoName(resourceName: string): string {
  const base = resourceName.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 55);
  return `${base}-${randomBytes(4).toString("hex")}`;
}

export class SearchIndex extends pulumi.dynamic.Resource {
  declare readonly name: pulumi.Output<string>;
  /** The region asked for. */
  declare readonly region: pulumi.Output<SearchRegion>;
  /** The region the service deployed the index in; may differ from `region`. */
  declare readonly deployedRegion: pulumi.Output<Reported<SearchRegion>>;
  declare readonly type: pulumi.Output<SearchType>;
  declare readonly endpoint: pulumi.Output<string>;
  /** Secret: both tokens, as stored (one secret output, see SearchIndexTokens). */
  declare readonly tokens: pulumi.Output<SearchIndexTokens>;
  /** The identity that manages the index: `user@address` of the management API. */
  declare readonly managedBy: pulumi.Output<string>;

  constructor(name: string, args: SearchIndexArgs, opts?: pulumi.CustomResourceOptions) {
    // Only keys a program can read: every key costs the SDK an Output and a round of serialization.
    const props: pulumi.Inputs = { ...STORED_PLACEHOLDERS, name: args.name, region: args.region, type: args.type };
    if (args.adopt !== undefined) props.adopt = args.adopt;
    if (args.tokenRotation !== undefined) props.tokenRotation = args.tokenRotation;
    // Unknown in a preview: a name drawn now would not be the one `up` draws.
    if (args.name === undefined && args.adopt === undefined)
      props.autoName = pulumi.runtime.isDryRun() ? pulumi.unknown : randomAutoName(name);
    super(
      providerFor(searchIndex),
      name,
      props,
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "tokens"] },
      "mgmt",
      "SearchIndex",
    );
  }

  /** Secret. (`?.`: under Pulumi's mocks, which echo inputs, `tokens` is undefined.) */
  get token(): pulumi.Output<string> {
    return this.tokens.apply((t) => t?.token) as pulumi.Output<string>;
  }
  /** Secret. */
  get readOnlyToken(): pulumi.Output<string> {
    return this.tokens.apply((t) => t?.readOnlyToken) as pulumi.Output<string>;
  }

  // Read from the service when used (see SearchIndexOutputs); unknown in a preview of a new index.
  get customerId(): pulumi.Output<string> {
    return this.detail("customerId");
  }
  get integrationEmail(): pulumi.Output<string> {
    return this.detail("integrationEmail");
  }
  get maxVectorCount(): pulumi.Output<number> {
    return this.detail("maxVectorCount");
  }
  get maxMonthlyReranks(): pulumi.Output<number> {
    return this.detail("maxMonthlyReranks");
  }
  get maxDailyUpdates(): pulumi.Output<number> {
    return this.detail("maxDailyUpdates");
  }
  get maxDailyQueries(): pulumi.Output<number> {
    return this.detail("maxDailyQueries");
  }
  get maxMonthlyBandwidth(): pulumi.Output<number> {
    return this.detail("maxMonthlyBandwidth");
  }
  get maxWritesPerSecond(): pulumi.Output<number> {
    return this.detail("maxWritesPerSecond");
  }
  get maxQueryPerSecond(): pulumi.Output<number> {
    return this.detail("maxQueryPerSecond");
  }
  get maxReadsPerRequest(): pulumi.Output<number> {
    return this.detail("maxReadsPerRequest");
  }
  get maxWritesPerRequest(): pulumi.Output<number> {
    return this.detail("maxWritesPerRequest");
  }
  get creationTime(): pulumi.Output<number> {
    return this.detail("creationTime");
  }
  get inputEnrichmentEnabled(): pulumi.Output<boolean> {
    return this.detail("inputEnrichmentEnabled");
  }

  /**
   * One field of the index as the service reports it now: one GET per index, made only if a
   * program reads a field, once however many it reads. Not secret: the tokens are read along
   * but never leave this object. An index gone from the service (refresh pending) reads as
   * undefined rather than failing the program.
   */
  private detail<K extends Detail>(key: K): pulumi.Output<NonNullable<SearchIndexInfo[K]>> {
    const details = (DETAILS.get(this) ?? DETAILS.set(this, this.id.apply(fetchDetails)).get(this))!;
    // Typed as the service's fields: undefined only where the service omits one.
    return details.apply((d) => d?.[key]) as pulumi.Output<NonNullable<SearchIndexInfo[K]>>;
  }
}

type Detail = Exclude<
  keyof SearchIndexInfo,
  keyof SearchIndexOutputs | "id" | "throughputVector" | "token" | "readOnlyToken"
>;
type SearchIndexInfo = GetSearchIndexResult;
const DETAILS = new WeakMap<SearchIndex, pulumi.Output<SearchIndexInfo | undefined>>();

function fetchDetails(id: string): Promise<SearchIndexInfo | undefined> {
  return ifFound(getSearchIndex({ id }));
}

const STORED_PLACEHOLDERS = { deployedRegion: undefined, endpoint: undefined, tokens: undefined, managedBy: undefined };
