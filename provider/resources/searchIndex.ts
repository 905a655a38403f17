/**
 * SearchIndex: a search index kept true by the Pulumi engine.
 *
 * - name changes rename in place; region or type changes replace (the API cannot change them);
 * - the region the service deployed to (`deployedRegion`) may differ from the one asked for and
 *   never causes a diff;
 * - create survives a lost answer without leaving a duplicate or an orphan;
 * - refresh drops an index deleted outside Pulumi and reports renames as drift, listing the
 *   indexes once per provider process rather than fetching each;
 * - `adopt` brings an existing index under management (dynamic resources have no import).
 */
import { createHash } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { MgmtClient } from "../api/client";
import { ApiError } from "../api/errors";
import {
  AVAILABLE_SEARCH_TYPES,
  SEARCH_REGIONS,
  SEARCH_TYPES,
  camelize,
  indexName,
  type Camelized,
  type SearchIndexRecord,
  type SearchRegion,
  type SearchType,
} from "../api/schemas";
import { apiClient } from "../runtime";
import { programClient } from "./programClient";
import { applyToSharedList, sharedList } from "./sharedList";
import { thinProvider } from "./thinProvider";
import { checkWith } from "./validation";

export interface SearchIndexArgs {
  /** 1 to 64 letters, digits, `-` and `_`. Default: the resource name plus a random suffix. */
  name?: pulumi.Input<string>;
  /** Region to create the index in: `eu-west-1` or `us-central1`. Changing it replaces the index. */
  region: pulumi.Input<SearchRegion>;
  /** Plan: `free` or `payg` (`fixed` is not currently available). Changing it replaces the index. */
  type: pulumi.Input<SearchType>;
  /** Take over an existing index, by id or exact name, instead of creating one. */
  adopt?: pulumi.Input<string>;
}

/** Inputs as the provider sees them after `check`. */
const Inputs = z.object({
  name: indexName,
  region: z.enum(SEARCH_REGIONS),
  type: z
    .enum(SEARCH_TYPES)
    .refine((t) => t !== "fixed", `"fixed" is not currently available; use one of ${AVAILABLE_SEARCH_TYPES.map((t) => `"${t}"`).join(", ")}`),
  adopt: z.string().min(1, "must not be empty (give an index id or name, or leave adopt out)").optional(),
  /** Set when `name` was not given: the generated name, which only this resource ever uses. */
  autoName: z.string().optional(),
});
type Inputs = z.infer<typeof Inputs>;

/** Every field of the record except the metrics, camelCased; `region` is the requested one. */
export interface SearchIndexOutputs extends Omit<Camelized<SearchIndexRecord>, "id" | "throughputVector" | "region"> {
  region: SearchRegion;
  deployedRegion: SearchRegion;
  autoName?: string;
  adopt?: string;
}

function outputsOf(record: SearchIndexRecord, inputs: Pick<Inputs, "region" | "autoName" | "adopt">): SearchIndexOutputs {
  const { id: _id, throughputVector: _metrics, region: deployedRegion, ...fields } = camelize(record);
  const outs: SearchIndexOutputs = { ...fields, region: inputs.region, deployedRegion };
  if (inputs.autoName !== undefined) outs.autoName = inputs.autoName;
  if (inputs.adopt !== undefined) outs.adopt = inputs.adopt;
  return outs;
}

/**
 * Pulumi's convention, the resource name plus a random-looking suffix, but derived from project,
 * stack and resource name: the preview shows the name `up` will create, and no other stack or
 * resource can ever hold it, so finding it taken means our own earlier attempt made it.
 */
export function autoNameFor(project: string, stack: string, resourceName: string): string {
  const base = resourceName.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 56);
  const suffix = createHash("sha256").update(`${project}\0${stack}\0${resourceName}`).digest("hex").slice(0, 7);
  return `${base}-${suffix}`;
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

async function adoptExisting(client: MgmtClient, inputs: Inputs): Promise<SearchIndexRecord> {
  const ref = inputs.adopt!;
  let record: SearchIndexRecord | undefined;
  try {
    record = await client.getSearchIndex(ref);
  } catch (err) {
    if (!(err instanceof ApiError && err.isNotFound)) throw err;
  }
  record ??= await findByName(client, ref);
  if (!record) throw new Error(`adopt: no search index with id or name "${ref}" exists for this user`);
  const problems: string[] = [];
  if (record.region !== inputs.region) problems.push(`it is deployed in region "${record.region}" but region is "${inputs.region}"`);
  if (record.type !== inputs.type) problems.push(`its type is "${record.type}" but type is "${inputs.type}"`);
  if (problems.length > 0) throw new Error(`adopt: search index "${record.name}" (${record.id}) cannot be adopted as declared: ${problems.join("; ")}`);
  if (record.name !== inputs.name) await client.renameSearchIndex(record.id, inputs.name);
  return { ...record, name: inputs.name };
}

/**
 * Creates the index. If the answer is lost (timeout, dropped connection, 5xx), the index may
 * exist: look it up by name before anything else. Names are unique per user, so trying the
 * create again after seeing it absent can never make a duplicate.
 */
async function createIndex(client: MgmtClient, inputs: Inputs): Promise<SearchIndexRecord> {
  const body = { name: inputs.name, region: inputs.region, type: inputs.type };
  // A generated name is this resource's alone: finding it taken means an interrupted earlier run
  // of this very resource created it, so it is ours to take back.
  let lostAnswer = inputs.autoName === inputs.name;
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.createSearchIndex(body);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 409 && !lostAnswer) {
        throw new Error(
          `a search index named "${inputs.name}" already exists: set adopt: "${inputs.name}" to manage it, or choose another name (${err.message})`,
        );
      }
      if (!(err.isAmbiguous || err.status === 409) || attempt >= 3) throw err;
      lostAnswer = true;
      const existing = await findByName(client, inputs.name);
      if (existing) return existing;
    }
  }
}

export const provider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    const inputs = { ...news };
    inputs.name ??= news.autoName;
    return checkWith(Inputs, inputs);
  },

  async diff(_id, olds: SearchIndexOutputs, news: Inputs) {
    const replaces = (["region", "type"] as const).filter((k) => olds[k] !== news[k]);
    const changes = replaces.length > 0 || olds.name !== news.name;
    return {
      changes,
      replaces,
      // Names are unique: a replacement that keeps the name must free it first.
      deleteBeforeReplace: replaces.length > 0 && olds.name === news.name,
    };
  },

  async create(news: Inputs) {
    const inputs = Inputs.parse(news);
    const client = apiClient();
    const record = inputs.adopt ? await adoptExisting(client, inputs) : await createIndex(client, inputs);
    return { id: record.id, outs: outputsOf(record, inputs) };
  },

  async read(id, props: SearchIndexOutputs) {
    const record = await readIndex(apiClient(), id);
    if (!record) return {};
    const outs = outputsOf(record, props);
    // Inputs follow what exists, so the next preview shows exactly what `up` would change back.
    const inputs: Partial<Inputs> = { name: record.name, region: props.region, type: record.type as Inputs["type"] };
    if (props.autoName !== undefined) inputs.autoName = props.autoName;
    if (props.adopt !== undefined) inputs.adopt = props.adopt;
    return { id, props: outs, inputs };
  },

  async update(id, olds: SearchIndexOutputs, news: Inputs) {
    if (olds.name !== news.name) {
      await apiClient().renameSearchIndex(id, news.name);
      await applyToSharedList<SearchIndexRecord>(INDEXES, (all) => all.filter((i) => i.id === id).forEach((i) => (i.name = news.name)));
    }
    const outs: SearchIndexOutputs = { ...olds, name: news.name };
    delete outs.adopt;
    delete outs.autoName;
    if (news.adopt !== undefined) outs.adopt = news.adopt;
    if (news.autoName !== undefined) outs.autoName = news.autoName;
    return { outs };
  },

  async delete(id) {
    try {
      await apiClient().deleteSearchIndex(id);
    } catch (err) {
      if (!(err instanceof ApiError && err.isNotFound)) throw err;
    }
    await applyToSharedList<SearchIndexRecord>(INDEXES, (all) => all.splice(0, all.length, ...all.filter((i) => i.id !== id)));
  },
};

export class SearchIndex extends pulumi.dynamic.Resource {
  declare readonly name: pulumi.Output<string>;
  /** The region asked for. */
  declare readonly region: pulumi.Output<SearchRegion>;
  /** The region the service deployed the index in; may differ from `region`. */
  declare readonly deployedRegion: pulumi.Output<SearchRegion>;
  declare readonly type: pulumi.Output<SearchType>;
  declare readonly customerId: pulumi.Output<string>;
  declare readonly endpoint: pulumi.Output<string>;
  declare readonly integrationEmail: pulumi.Output<string>;
  /** Secret. */
  declare readonly token: pulumi.Output<string>;
  /** Secret. */
  declare readonly readOnlyToken: pulumi.Output<string>;
  declare readonly maxVectorCount: pulumi.Output<number>;
  declare readonly maxMonthlyReranks: pulumi.Output<number>;
  declare readonly maxDailyUpdates: pulumi.Output<number>;
  declare readonly maxDailyQueries: pulumi.Output<number>;
  declare readonly maxMonthlyBandwidth: pulumi.Output<number>;
  declare readonly maxWritesPerSecond: pulumi.Output<number>;
  declare readonly maxQueryPerSecond: pulumi.Output<number>;
  declare readonly maxReadsPerRequest: pulumi.Output<number>;
  declare readonly maxWritesPerRequest: pulumi.Output<number>;
  declare readonly creationTime: pulumi.Output<number>;
  declare readonly inputEnrichmentEnabled: pulumi.Output<boolean>;

  constructor(name: string, args: SearchIndexArgs, opts?: pulumi.CustomResourceOptions) {
    const outputs = Object.fromEntries(OUTPUT_NAMES.map((k) => [k, undefined]));
    super(
      thinProvider("resources/searchIndex"),
      name,
      {
        ...outputs,
        name: args.name,
        region: args.region,
        type: args.type,
        adopt: args.adopt,
        autoName: args.name === undefined ? autoNameFor(pulumi.getProject(), pulumi.getStack(), name) : undefined,
      },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "token", "readOnlyToken"] },
      "mgmt",
      "SearchIndex",
    );
  }
}

const OUTPUT_NAMES = [
  "deployedRegion",
  "customerId",
  "endpoint",
  "integrationEmail",
  "token",
  "readOnlyToken",
  "maxVectorCount",
  "maxMonthlyReranks",
  "maxDailyUpdates",
  "maxDailyQueries",
  "maxMonthlyBandwidth",
  "maxWritesPerSecond",
  "maxQueryPerSecond",
  "maxReadsPerRequest",
  "maxWritesPerRequest",
  "creationTime",
  "inputEnrichmentEnabled",
] as const;

// -- functions ---------------------------------------------------------------------------------

export type SearchIndexInfo = Camelized<SearchIndexRecord>;

/** One index by id, with every field of the record. Use the Output form to keep tokens secret. */
export async function getSearchIndex(args: { id: string }): Promise<SearchIndexInfo> {
  return camelize(await programClient().getSearchIndex(args.id));
}

export function getSearchIndexOutput(args: { id: pulumi.Input<string> }): pulumi.Output<SearchIndexInfo> {
  return pulumi.secret(pulumi.output(args.id).apply((id) => getSearchIndex({ id })));
}

/** Every index of the configured user, including the throughput metrics. */
export async function getSearchIndexes(): Promise<SearchIndexInfo[]> {
  return (await programClient().listSearchIndexes()).map((r) => camelize(r));
}

export function getSearchIndexesOutput(): pulumi.Output<SearchIndexInfo[]> {
  return pulumi.secret(pulumi.output(getSearchIndexes()));
}
