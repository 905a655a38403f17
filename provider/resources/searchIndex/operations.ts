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
import type * as pulumi from "@pulumi/pulumi";
import type { MgmtClient } from "../../api/client";
import { ApiError, ifFound, isNotFound } from "../../api/errors";
import { SEARCH_TYPES, type SearchIndexRecord, type SearchType } from "../../api/schemas";
import { apiClient } from "../../runtime";
import { UserError } from "../../userError";
import { believeGone, managementIdentity, type ManagedObject } from "../identity";
import { applyToSharedList, sharedList } from "../sharedList";
import { rotateOnce, rotationDue } from "../rotation";
import { recordTakeover, takenOverThisRun } from "../takeovers";
import type { Api } from "../../api/endpoints";
import { sayReleased } from "../released";
import { isImport } from "../imported";
import { checkWithSettings, isUnknown, readInputs } from "../validation";
import { failedPartway } from "../partial";
import { Inputs, type FoundIndex, type SearchIndexOutputs, type SearchIndexTokens } from "./schema";

function tokensOf(token: string, readOnlyToken: string | undefined): SearchIndexTokens {
  return readOnlyToken === undefined ? { token } : { token, readOnlyToken };
}

function outputsOf(
  record: SearchIndexRecord,
  inputs: Pick<Inputs, "region" | "autoName" | "adopt" | "tokenRotation">,
  managedBy: string,
): SearchIndexOutputs {
  const outs: SearchIndexOutputs = {
    name: record.name,
    region: inputs.region,
    type: record.type,
    deployedRegion: record.region,
    tokens: tokensOf(record.token, record.read_only_token),
    managedBy,
  };
  if (record.endpoint !== undefined) outs.endpoint = record.endpoint;
  if (inputs.autoName !== undefined) outs.autoName = inputs.autoName;
  if (inputs.adopt !== undefined) outs.adopt = inputs.adopt;
  if (inputs.tokenRotation !== undefined) outs.tokenRotation = inputs.tokenRotation;
  return outs;
}

const INDEXES = "search indexes";

async function findByName(client: MgmtClient, name: string): Promise<SearchIndexRecord | undefined> {
  return (await client.searchIndexes.list()).find((i) => i.name === name);
}

/**
 * Refresh reads from one shared list (endpoint 3) rather than one GET per index. An index missing
 * from the list is confirmed with a GET before it counts as gone: the list's paging is not
 * specified, and dropping a live index from state by mistake would orphan it.
 */
async function readIndex(client: MgmtClient, id: string): Promise<SearchIndexRecord | undefined> {
  const listed = (await sharedList(INDEXES, () => client.searchIndexes.list())).find((i) => i.id === id);
  if (listed) return listed;
  return ifFound(client.searchIndexes.get(id));
}

const indexLabel = (name: string, id: string) => `search index "${name}" (${id})`;

/**
 * Takes an existing index over: the record after the stack's changes, and how it was found if it
 * changed anything. A rename or set-plan that fails after an earlier one succeeded calls
 * `partway` with the index as it now is (failedPartway: the engine then keeps it in the stack).
 */
async function adoptExisting(
  client: MgmtClient,
  inputs: Inputs,
  partway: (now: SearchIndexRecord, found: FoundIndex, err: unknown) => never,
): Promise<{ record: SearchIndexRecord; found?: FoundIndex }> {
  const ref = inputs.adopt!;
  const record = (await ifFound(client.searchIndexes.get(ref))) ?? (await findByName(client, ref));
  if (!record) throw new UserError(`adopt: no search index with id or name "${ref}" exists for this user`);
  recordTakeover({ kind: "search index", id: record.id });
  if (record.region !== inputs.region) {
    throw new UserError(
      `adopt: search index "${record.name}" (${record.id}) is deployed in region "${record.region}" but region is "${inputs.region}": an index cannot move, so declare region "${record.region}" to adopt it`,
    );
  }
  const name = inputs.name ?? record.name;
  const found = { name: record.name, type: record.type };
  let now = record;
  try {
    if (record.name !== name) {
      await client.searchIndexes.rename(record.id, name);
      now = { ...now, name };
    }
    if (record.type !== inputs.type) {
      await client.searchIndexes.setPlan(record.id, inputs.type);
      now = { ...now, type: inputs.type };
      return { record: await client.searchIndexes.get(record.id), found };
    }
  } catch (err) {
    if (now === record) throw err;
    partway(now, found, err);
  }
  return { record: now, found: record.name !== name ? found : undefined };
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
      return await client.searchIndexes.create(body);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 409 && !mayHaveCommitted) throw nameTaken(name, err.message);
      if (!(err.isAmbiguous || err.status === 409)) throw err;
      mayHaveCommitted = true;
      const existing = await findByName(client, name);
      if (existing) return existing;
      if (attempt >= CREATE_ATTEMPTS) {
        throw err.about(
          `not created after ${attempt} attempts, each answered ambiguously and followed by a lookup that found nothing`,
        );
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
  const now = await client.searchIndexes.get(id);
  if (now.name === props.name && found.name !== props.name) await client.searchIndexes.rename(id, found.name);
  if (now.type === props.type && found.type !== props.type && (SEARCH_TYPES as readonly string[]).includes(found.type))
    await client.searchIndexes.setPlan(id, found.type as SearchType);
}

/**
 * What an import records of an index: adopted by its id, in the region the service has it in, so
 * the inputs are what a program adopting it declares and destroy releases it (`found` appears
 * only once the stack changes its name or plan, as for `adopt`).
 */
function importedIndex(
  record: SearchIndexRecord,
): Pick<SearchIndexOutputs, "region" | "adopt" | "autoName" | "found" | "tokenRotation"> {
  return { region: record.region as SearchIndexOutputs["region"], adopt: record.id };
}

/** The index as the not-found rule sees it (believeGone): gone, unless other credentials are asking. */
function managedIndex(client: MgmtClient, what: string, managedBy: string | undefined): ManagedObject {
  return { what, managedBy, asking: managementIdentity(client.settings), settings: client.settings };
}

/** The API areas its calls go to (its declaration's `apis`). */
export const APIS: readonly Api[] = ["management"];

export const searchIndexOperations: pulumi.dynamic.ResourceProvider<Inputs, SearchIndexOutputs> = {
  async check(olds, news) {
    const inputs = { ...news };
    if (inputs.name === undefined && inputs.autoName !== undefined) {
      // The name this resource already has wins over the one this run drew.
      if (typeof olds?.autoName === "string" && !isUnknown(olds.autoName)) inputs.autoName = olds.autoName;
      inputs.name = inputs.autoName;
    }
    const result = checkWithSettings(Inputs, inputs, APIS);
    if (inputs.name === undefined && inputs.adopt === undefined && !result.failures?.length) {
      return { inputs, failures: [{ property: "name", reason: "name: give a name, or adopt an existing index" }] };
    }
    return result;
  },

  async diff(id, olds: SearchIndexOutputs, news: Inputs) {
    const adopted = olds.adopt !== undefined && news.adopt !== undefined;
    // A region not known until apply (a preview): the up diffs again with it, and refuses a move then.
    if (adopted && isUnknown(news.region)) return { changes: true, replaces: [] };
    const replaces = (["region"] as const).filter((k) => olds[k] !== news[k]);
    if (replaces.length > 0 && adopted) {
      // A replacement would delete the index this stack only adopted, and the new one could not adopt it.
      throw new UserError(
        `${indexLabel(olds.name, id)} was adopted in region "${olds.region}": an index cannot move, and an adopted index is never deleted to make a new one. ` +
          `Declare region "${olds.region}"; to move the data, declare a new SearchIndex in "${news.region}" beside it`,
      );
    }
    const renames = news.name !== undefined && olds.name !== news.name;
    // Adopting or handing over changes what destroy does: the preview shows it (an update, no call).
    const changes =
      replaces.length > 0 ||
      renames ||
      olds.type !== news.type ||
      olds.adopt !== news.adopt ||
      rotationDue(olds.tokenRotation, news.tokenRotation);
    return {
      changes,
      replaces,
      // Names are unique: a replacement that keeps the name (or may: not known yet) must free it first.
      deleteBeforeReplace:
        replaces.length > 0 && (news.name === undefined || isUnknown(news.name) || olds.name === news.name),
    };
  },

  async create(news: Inputs) {
    const inputs = Inputs.parse(news);
    const client = apiClient();
    const about = (err: unknown) =>
      err instanceof ApiError ? err.about(`search index "${inputs.name ?? inputs.adopt}"`) : err;
    const outputs = (record: SearchIndexRecord, found: FoundIndex | undefined) => {
      const outs = outputsOf(record, inputs, managementIdentity(client.settings));
      if (found) outs.found = found;
      return outs;
    };
    const { record, found } = await (
      inputs.adopt
        ? adoptExisting(client, inputs, (now, found, err) => {
            throw failedPartway(about(err), now.id, outputs(now, found), news);
          })
        : createIndex(client, inputs, inputs.name!).then((r) => ({ record: r, found: undefined }))
    ).catch((err) => {
      throw about(err);
    });
    recordTakeover({ kind: "search index", id: record.id });
    return { id: record.id, outs: outputs(record, found) };
  },

  async read(id, stored) {
    const client = apiClient();
    const record = await readIndex(client, id);
    if (!record) {
      believeGone(managedIndex(client, indexLabel(stored?.name ?? id, id), stored?.managedBy));
      return {};
    }
    // An import (imported.ts) takes the index as `adopt` does: released, never deleted, on destroy.
    const props = isImport(stored) ? importedIndex(record) : stored!;
    // Visible to the identity asking now: that identity manages it from here on.
    const outs = outputsOf(record, props, managementIdentity(client.settings));
    // Inputs follow what exists, so the next preview shows exactly what `up` would change back.
    const inputs: Partial<Inputs> = { name: record.name, region: props.region, type: record.type as Inputs["type"] };
    if (props.autoName !== undefined) inputs.autoName = props.autoName;
    if (props.adopt !== undefined) inputs.adopt = props.adopt;
    if (props.found !== undefined) outs.found = props.found;
    if (props.tokenRotation !== undefined) inputs.tokenRotation = props.tokenRotation;
    return { id, props: outs, inputs: readInputs<SearchIndexOutputs>(inputs) };
  },

  async update(id, olds: SearchIndexOutputs, news: Inputs) {
    const client = apiClient();
    const label = indexLabel(olds.name, id);
    let gone = false;
    const guard = (err: unknown): never => {
      if (isNotFound(err)) {
        believeGone(managedIndex(client, label, olds.managedBy));
        gone = true;
        throw new UserError(
          `${label} no longer exists: run \`pulumi refresh\` to drop it from the stack, then \`pulumi up\` to create it again`,
        );
      }
      throw err instanceof ApiError ? err.about(label) : err;
    };
    const name = news.name ?? olds.name;
    const rotating = rotationDue(olds.tokenRotation, news.tokenRotation);
    // The index as it is: each change is recorded once made, so that a later failure reports it.
    const now = { name: olds.name, type: olds.type, tokens: olds.tokens, rotated: false };
    const outputs = (): SearchIndexOutputs => {
      const outs: SearchIndexOutputs = {
        name: now.name,
        region: olds.region,
        type: now.type,
        deployedRegion: olds.deployedRegion,
        tokens: now.tokens,
        managedBy: managementIdentity(client.settings),
      };
      // A rotation not made yet stays due: the recorded value is the old one.
      const rotation = rotating && !now.rotated ? olds.tokenRotation : (news.tokenRotation ?? olds.tokenRotation);
      if (rotation !== undefined) outs.tokenRotation = rotation;
      if (olds.endpoint !== undefined) outs.endpoint = olds.endpoint;
      if (news.adopt !== undefined) outs.adopt = news.adopt;
      // Still adopted: how it was before this stack first changed it is what destroy gives back.
      const found =
        olds.found ??
        (olds.adopt !== undefined && (olds.name !== now.name || olds.type !== now.type)
          ? { name: olds.name, type: olds.type }
          : undefined);
      if (news.adopt !== undefined && found !== undefined) outs.found = found;
      if (news.autoName !== undefined) outs.autoName = news.autoName;
      return outs;
    };
    try {
      if (olds.name !== name) {
        await client.searchIndexes.rename(id, name).catch(guard);
        now.name = name;
        await applyToSharedList<SearchIndexRecord>(INDEXES, (all) =>
          all.filter((i) => i.id === id).forEach((i) => (i.name = name)),
        );
      }
      // The plan's limits are not stored (SearchIndexOutputs), so set-plan needs no read-back.
      if (olds.type !== news.type) {
        await client.searchIndexes.setPlan(id, news.type).catch(guard);
        now.type = news.type;
      }
      // A new tokenRotation value: both tokens replaced in place, and the new ones returned, so that
      // whatever consumes them is updated in this same `up`.
      if (rotating) {
        const read = async () => (await client.searchIndexes.get(id)).token;
        await rotateOnce(await read().catch(guard), read, () => client.searchIndexes.resetTokens(id)).catch(guard);
        const rotated = await client.searchIndexes.get(id).catch(guard);
        now.tokens = tokensOf(rotated.token, rotated.read_only_token);
        now.rotated = true;
      }
    } catch (err) {
      if (gone || (now.name === olds.name && now.type === olds.type)) throw err;
      throw failedPartway(err, id, outputs(), news);
    }
    return { outs: outputs() };
  },

  async delete(id, props: SearchIndexOutputs) {
    const client = apiClient();
    // Renamed in code (or replaced): the resource that took the index over in this run keeps it.
    if (takenOverThisRun({ kind: "search index", id })) return;
    try {
      if (props.adopt !== undefined) {
        await release(client, id, props);
        await sayReleased(indexLabel(props.name, id));
      } else await client.searchIndexes.delete(id);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      believeGone(managedIndex(client, indexLabel(props.name, id), props.managedBy));
    }
    await applyToSharedList<SearchIndexRecord>(INDEXES, (all) =>
      all.splice(0, all.length, ...all.filter((i) => i.id !== id)),
    );
  },
};
