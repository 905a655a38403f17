/**
 * SearchIndex: a search index kept true by the Pulumi engine.
 *
 * - name and plan (`type`) change in place (rename, set-plan); a region change replaces (the API
 *   cannot move an index);
 * - the region the service deployed to (`deployedRegion`) may differ from the one asked for and
 *   never causes a diff;
 * - create survives a lost or ambiguous answer without leaving a duplicate or an orphan;
 * - refresh drops an index deleted outside Pulumi and reports renames as drift, listing the
 *   indexes once per provider process rather than fetching each; an index not found under
 *   other credentials than the ones that manage it is never dropped (identity.ts);
 * - `adopt` brings an existing index under management (dynamic resources have no import).
 */
import { randomBytes } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { MgmtClient } from "../api/client";
import { ApiError } from "../api/errors";
import {
  AVAILABLE_SEARCH_TYPES,
  SEARCH_REGIONS,
  SEARCH_TYPES,
  indexName,
  type Reported,
  type SearchIndexRecord,
  type SearchRegion,
  type SearchType,
} from "../api/schemas";
import { apiClient } from "../runtime";
import { confirmGone, goneIfNotFound, managementIdentity } from "./identity";
import { getSearchIndex, type GetSearchIndexResult } from "../functions/getSearchIndex";
import { applyToSharedList, sharedList } from "./sharedList";
import { providerFor } from "./providerRef";
import { recordTakeover, takenOverThisRun } from "./takeovers";
import { UserError } from "../userError";
import { checkWithSettings, isUnknown, readInputs } from "./validation";

export interface SearchIndexArgs {
  /**
   * 1 to 64 letters, digits, `-` and `_`. Default: the resource name plus a random suffix, chosen
   * at the first `up` and kept (a preview shows it as known after apply); with `adopt`, the
   * adopted index's own name, left as it is.
   */
  name?: pulumi.Input<string>;
  /** Region to create the index in: `eu-west-1` or `us-central1`. Changing it replaces the index. */
  region: pulumi.Input<SearchRegion>;
  /** Plan: `free` or `payg` (`fixed` is not currently available). Changes in place (set-plan). */
  type: pulumi.Input<SearchType>;
  /**
   * Take over an existing index, by id or exact name, instead of creating one. Destroy releases an
   * adopted index (it stays, with the name and plan it had when adopted) and never deletes it;
   * removing `adopt` later hands the index to the stack, whose destroy then deletes it.
   */
  adopt?: pulumi.Input<string>;
}

/** Inputs as the provider sees them after `check`. */
const Inputs = z.object({
  /** Left out only with `adopt`: the adopted index keeps its name. */
  name: indexName.optional(),
  region: z.enum(SEARCH_REGIONS),
  type: z
    .enum(SEARCH_TYPES)
    .refine((t) => t !== "fixed", `"fixed" is not currently available; use one of ${AVAILABLE_SEARCH_TYPES.map((t) => `"${t}"`).join(", ")}`),
  adopt: z.string().min(1, "must not be empty (give an index id or name, or leave adopt out)").optional(),
  /** Set when `name` was not given: the generated name, which only this resource ever uses. */
  autoName: z.string().optional(),
});
type Inputs = z.infer<typeof Inputs>;

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
}

interface FoundIndex {
  name: string;
  type: Reported<SearchType>;
}

function tokensOf(token: string, readOnlyToken: string | undefined): SearchIndexTokens {
  return readOnlyToken === undefined ? { token } : { token, readOnlyToken };
}

function outputsOf(record: SearchIndexRecord, inputs: Pick<Inputs, "region" | "autoName" | "adopt">, managedBy: string): SearchIndexOutputs {
  const outs: SearchIndexOutputs = { name: record.name, region: inputs.region, type: record.type, deployedRegion: record.region, tokens: tokensOf(record.token, record.read_only_token), managedBy };
  if (record.endpoint !== undefined) outs.endpoint = record.endpoint;
  if (inputs.autoName !== undefined) outs.autoName = inputs.autoName;
  if (inputs.adopt !== undefined) outs.adopt = inputs.adopt;
  return outs;
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

const INDEXES = "search indexes";

async function findByName(client: MgmtClient, name: string): Promise<SearchIndexRecord | undefined> {
  return (await client.listSearchIndexes()).find((i) => i.name === name);
}

/**
 * Refresh reads from one shared list (endpoint 3) rather than one GET per index. An index missing
 * from the list is confirmed with a GET before it counts as gone: the list's paging is not
 * specified, and dropping a live index from state by mistake would orphan it.
 */
async function readIndex(client: MgmtClient, id: string): Promise<SearchIndexRecord | undefined> {
  const listed = (await sharedList(INDEXES, () => client.listSearchIndexes())).find((i) => i.id === id);
  if (listed) return listed;
  try {
    return await client.getSearchIndex(id);
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound) return undefined;
    throw err;
  }
}

const indexLabel = (name: string, id: string) => `search index "${name}" (${id})`;

/** Takes an existing index over: the record after the stack's changes, and how it was found if it changed anything. */
async function adoptExisting(client: MgmtClient, inputs: Inputs): Promise<{ record: SearchIndexRecord; found?: FoundIndex }> {
  const ref = inputs.adopt!;
  let record: SearchIndexRecord | undefined;
  try {
    record = await client.getSearchIndex(ref);
  } catch (err) {
    if (!(err instanceof ApiError && err.isNotFound)) throw err;
  }
  record ??= await findByName(client, ref);
  if (!record) throw new UserError(`adopt: no search index with id or name "${ref}" exists for this user`);
  recordTakeover({ kind: "search index", id: record.id });
  if (record.region !== inputs.region) {
    throw new UserError(
      `adopt: search index "${record.name}" (${record.id}) is deployed in region "${record.region}" but region is "${inputs.region}": an index cannot move, so declare region "${record.region}" to adopt it`,
    );
  }
  const name = inputs.name ?? record.name;
  const found = { name: record.name, type: record.type };
  if (record.name !== name) await client.renameSearchIndex(record.id, name);
  if (record.type !== inputs.type) {
    await client.setSearchIndexPlan(record.id, inputs.type);
    return { record: await client.getSearchIndex(record.id), found };
  }
  return { record: { ...record, name }, found: record.name !== name ? found : undefined };
}

const CREATE_ATTEMPTS = 5;

function nameTaken(name: string, answer?: string): UserError {
  return new UserError(
    `a search index named "${name}" already exists and this stack did not create it: set adopt: "${name}" to manage it, or choose another name; ` +
      `if this stack created it under another resource name, give the renamed resource \`aliases\` instead${answer ? ` (${answer})` : ""}`,
  );
}

/**
 * Creates the index. After an ambiguous answer (5xx, timeout, dropped connection) the index may
 * exist: look it up by name before anything else, and send again only after seeing it absent.
 * Names are unique per user, so this can never make a duplicate.
 *
 * An index found under the name is claimed only with proof that this call created it: a name
 * drawn at random for this resource (autoName) is nobody else's, and a name the user chose is
 * looked up before the first send, so one that is taken fails before anything is sent. A 409 is
 * only "ours" after an ambiguous attempt of this very call.
 */
async function createIndex(client: MgmtClient, inputs: Inputs, name: string): Promise<SearchIndexRecord> {
  const body = { name, region: inputs.region, type: inputs.type };
  if (name !== inputs.autoName && (await findByName(client, name))) throw nameTaken(name);
  let mayHaveCommitted = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.createSearchIndex(body);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 409 && !mayHaveCommitted) throw nameTaken(name, err.message);
      if (!(err.isAmbiguous || err.status === 409)) throw err;
      mayHaveCommitted = true;
      const existing = await findByName(client, name);
      if (existing) return existing;
      if (attempt >= CREATE_ATTEMPTS) {
        throw err.about(`not created after ${attempt} attempts, each answered ambiguously and followed by a lookup that found nothing`);
      }
    }
  }
}

/**
 * An adopted index is released, never deleted: the name and plan it had when adopted are given
 * back, each only while the stack's own value is still in place.
 */
async function release(client: MgmtClient, id: string, props: SearchIndexOutputs): Promise<void> {
  const found = props.found;
  if (!found) return;
  const now = await client.getSearchIndex(id);
  if (now.name === props.name && found.name !== props.name) await client.renameSearchIndex(id, found.name);
  if (now.type === props.type && found.type !== props.type && (SEARCH_TYPES as readonly string[]).includes(found.type)) await client.setSearchIndexPlan(id, found.type as SearchType);
}

/** A 404 from an operation on an existing index: gone, unless other credentials are asking. */
function notFound(err: unknown, label: string, managedBy: string | undefined, client: MgmtClient): boolean {
  return goneIfNotFound(err, label, managedBy, managementIdentity(client.settings), client.settings);
}

export const searchIndexProvider: pulumi.dynamic.ResourceProvider<Inputs, SearchIndexOutputs> = {
  async check(olds, news) {
    const inputs = { ...news };
    if (inputs.name === undefined && inputs.autoName !== undefined) {
      // The name this resource already has wins over the one this run drew.
      if (typeof olds?.autoName === "string" && !isUnknown(olds.autoName)) inputs.autoName = olds.autoName;
      inputs.name = inputs.autoName;
    }
    const result = checkWithSettings(Inputs, inputs, ["management"]);
    if (inputs.name === undefined && inputs.adopt === undefined && !result.failures?.length) {
      return { inputs, failures: [{ property: "name", reason: "name: give a name, or adopt an existing index" }] };
    }
    return result;
  },

  async diff(id, olds: SearchIndexOutputs, news: Inputs) {
    const replaces = (["region"] as const).filter((k) => olds[k] !== news[k]);
    if (replaces.length > 0 && olds.adopt !== undefined && news.adopt !== undefined) {
      // A replacement would delete the index this stack only adopted, and the new one could not adopt it.
      throw new UserError(
        `${indexLabel(olds.name, id)} was adopted in region "${olds.region}": an index cannot move, and an adopted index is never deleted to make a new one. ` +
          `Declare region "${olds.region}"; to move the data, declare a new SearchIndex in "${news.region}" beside it`,
      );
    }
    const renames = news.name !== undefined && olds.name !== news.name;
    // Adopting or handing over changes what destroy does: the preview shows it (an update, no call).
    const changes = replaces.length > 0 || renames || olds.type !== news.type || olds.adopt !== news.adopt;
    return {
      changes,
      replaces,
      // Names are unique: a replacement that keeps the name must free it first.
      deleteBeforeReplace: replaces.length > 0 && (news.name === undefined || olds.name === news.name),
    };
  },

  async create(news: Inputs) {
    const inputs = Inputs.parse(news);
    const client = apiClient();
    const { record, found } = await (inputs.adopt ? adoptExisting(client, inputs) : createIndex(client, inputs, inputs.name!).then((r) => ({ record: r, found: undefined }))).catch((err) => {
      throw err instanceof ApiError ? err.about(`search index "${inputs.name ?? inputs.adopt}"`) : err;
    });
    recordTakeover({ kind: "search index", id: record.id });
    const outs = outputsOf(record, inputs, managementIdentity(client.settings));
    if (found) outs.found = found;
    return { id: record.id, outs };
  },

  async read(id, stored) {
    const props = stored!; // the engine always passes what it recorded
    const client = apiClient();
    const record = await readIndex(client, id);
    if (!record) {
      confirmGone(indexLabel(props.name, id), props.managedBy, managementIdentity(client.settings), client.settings);
      return {};
    }
    // Visible to the identity asking now: that identity manages it from here on.
    const outs = outputsOf(record, props, managementIdentity(client.settings));
    // Inputs follow what exists, so the next preview shows exactly what `up` would change back.
    const inputs: Partial<Inputs> = { name: record.name, region: props.region, type: record.type as Inputs["type"] };
    if (props.autoName !== undefined) inputs.autoName = props.autoName;
    if (props.adopt !== undefined) inputs.adopt = props.adopt;
    if (props.found !== undefined) outs.found = props.found;
    return { id, props: outs, inputs: readInputs<SearchIndexOutputs>(inputs) };
  },

  async update(id, olds: SearchIndexOutputs, news: Inputs) {
    const client = apiClient();
    const label = indexLabel(olds.name, id);
    const guard = (err: unknown): never => {
      if (notFound(err, label, olds.managedBy, client)) throw new UserError(`${label} no longer exists: run \`pulumi refresh\` to drop it from the stack, then \`pulumi up\` to create it again`);
      throw err instanceof ApiError ? err.about(label) : err;
    };
    const name = news.name ?? olds.name;
    if (olds.name !== name) {
      await client.renameSearchIndex(id, name).catch(guard);
      await applyToSharedList<SearchIndexRecord>(INDEXES, (all) => all.filter((i) => i.id === id).forEach((i) => (i.name = name)));
    }
    // The plan's limits are not stored (SearchIndexOutputs), so set-plan needs no read-back.
    if (olds.type !== news.type) await client.setSearchIndexPlan(id, news.type).catch(guard);
    const outs: SearchIndexOutputs = { name, region: olds.region, type: news.type, deployedRegion: olds.deployedRegion, tokens: olds.tokens, managedBy: managementIdentity(client.settings) };
    if (olds.endpoint !== undefined) outs.endpoint = olds.endpoint;
    if (news.adopt !== undefined) outs.adopt = news.adopt;
    // Still adopted: how it was before this stack first changed it is what destroy gives back.
    const found = olds.found ?? (olds.adopt !== undefined && (olds.name !== name || olds.type !== news.type) ? { name: olds.name, type: olds.type } : undefined);
    if (news.adopt !== undefined && found !== undefined) outs.found = found;
    if (news.autoName !== undefined) outs.autoName = news.autoName;
    return { outs };
  },

  async delete(id, props: SearchIndexOutputs) {
    const client = apiClient();
    // Renamed in code (or replaced): the resource that took the index over in this run keeps it.
    if (takenOverThisRun({ kind: "search index", id })) return;
    try {
      if (props.adopt !== undefined) await release(client, id, props);
      else await client.deleteSearchIndex(id);
    } catch (err) {
      if (!notFound(err, indexLabel(props.name, id), props.managedBy, client)) throw err;
    }
    await applyToSharedList<SearchIndexRecord>(INDEXES, (all) => all.splice(0, all.length, ...all.filter((i) => i.id !== id)));
  },
};

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
    // Unknown in a preview: a name drawn now would not be the one `up` draws.
    if (args.name === undefined && args.adopt === undefined) props.autoName = pulumi.runtime.isDryRun() ? pulumi.unknown : randomAutoName(name);
    super(providerFor("searchIndex"), name, props, { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "tokens"] }, "mgmt", "SearchIndex");
  }

  /** Secret. (`?.`: under Pulumi's mocks, which echo inputs, `tokens` is undefined.) */
  get token(): pulumi.Output<string> { return this.tokens.apply((t) => t?.token) as pulumi.Output<string>; }
  /** Secret. */
  get readOnlyToken(): pulumi.Output<string> { return this.tokens.apply((t) => t?.readOnlyToken) as pulumi.Output<string>; }

  // Read from the service when used (see SearchIndexOutputs); unknown in a preview of a new index.
  get customerId(): pulumi.Output<string> { return this.detail("customerId"); }
  get integrationEmail(): pulumi.Output<string> { return this.detail("integrationEmail"); }
  get maxVectorCount(): pulumi.Output<number> { return this.detail("maxVectorCount"); }
  get maxMonthlyReranks(): pulumi.Output<number> { return this.detail("maxMonthlyReranks"); }
  get maxDailyUpdates(): pulumi.Output<number> { return this.detail("maxDailyUpdates"); }
  get maxDailyQueries(): pulumi.Output<number> { return this.detail("maxDailyQueries"); }
  get maxMonthlyBandwidth(): pulumi.Output<number> { return this.detail("maxMonthlyBandwidth"); }
  get maxWritesPerSecond(): pulumi.Output<number> { return this.detail("maxWritesPerSecond"); }
  get maxQueryPerSecond(): pulumi.Output<number> { return this.detail("maxQueryPerSecond"); }
  get maxReadsPerRequest(): pulumi.Output<number> { return this.detail("maxReadsPerRequest"); }
  get maxWritesPerRequest(): pulumi.Output<number> { return this.detail("maxWritesPerRequest"); }
  get creationTime(): pulumi.Output<number> { return this.detail("creationTime"); }
  get inputEnrichmentEnabled(): pulumi.Output<boolean> { return this.detail("inputEnrichmentEnabled"); }

  /**
   * One field of the index as the service reports it now: one GET per index, made only if a
   * program reads a field, once however many it reads. Not secret: the tokens are read along
   * but never leave this object. An index gone from the service (refresh pending) reads as
   * undefined rather than failing the program.
   */
  private detail<K extends Detail>(key: K): pulumi.Output<NonNullable<SearchIndexInfo[K]>> {
    const details = (DETAILS.get(this) ?? DETAILS.set(this, this.id.apply(fetchDetails)).get(this))!;
    // Typed as before, when these were stored outputs: undefined only where the service omits one.
    return details.apply((d) => d?.[key]) as pulumi.Output<NonNullable<SearchIndexInfo[K]>>;
  }
}

type Detail = Exclude<keyof SearchIndexInfo, keyof SearchIndexOutputs | "id" | "throughputVector" | "token" | "readOnlyToken">;
type SearchIndexInfo = GetSearchIndexResult;
const DETAILS = new WeakMap<SearchIndex, pulumi.Output<SearchIndexInfo | undefined>>();

async function fetchDetails(id: string): Promise<SearchIndexInfo | undefined> {
  try {
    return await getSearchIndex({ id });
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound) return undefined;
    throw err;
  }
}

const STORED_PLACEHOLDERS = { deployedRegion: undefined, endpoint: undefined, tokens: undefined, managedBy: undefined };
