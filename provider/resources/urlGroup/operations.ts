/**
 * UrlGroup: a URL group (the API's topic) of a messaging account, and the endpoints this stack
 * declares in it.
 *
 * - `up` adds and removes exactly the difference between the declared endpoints and the ones last
 *   recorded; endpoints others added are never removed (refresh reports them in `otherEndpoints`
 *   and in one line of the run's output), unless the stack declares them.
 * - A new name is a new group (replace): the service has no rename. A new region is a new group too.
 * - Provenance: `created` (the stack made the group) and `addedEndpoints` (the URLs it added).
 *   Destroy removes only those endpoints, and deletes the group only when the stack made it and
 *   nothing else is left in it; a group the stack found keeps everything else.
 * - The service refuses (400) to delete a group a schedule publishes to: destroy says so in one
 *   line naming the schedules whose destination is the group (listed after the refusal).
 * - Over the account's `max_topics` or `max_endpoints_per_topic` the service answers 412: the
 *   error says which limits.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { MgmtClient } from "../../api/client";
import { ApiError, ifFound, isNotFound } from "../../api/errors";
import type { Api } from "../../api/endpoints";
import type { UrlGroupEndpoint, UrlGroupRecord } from "../../api/urlGroupSchemas";
import { apiClient } from "../../runtime";
import { tellEngine } from "../../waitNotice";
import { withoutUndefined } from "../../withoutUndefined";
import { believeGone, latestToken, type ManagedObject } from "../identity";
import { isImport, regionAndName } from "../imported";
import { act, regionProblem, tokenIdentityOf } from "../messagingActions";
import { sayReleased } from "../released";
import { recordTakeover, takenOverThisRun, type ObjectRef } from "../takeovers";
import { actingWith, assertSameAccount, judgedAs, revokedTokenError, type Acting } from "../tokenAccount";
import { checkWithSettings, isUnknown, readInputs } from "../validation";
import { missingFrom, normalized, sameEndpoints, urlsNotIn } from "./endpointSets";
import { UrlGroupInputs, urlGroupId, type UrlGroupOutputs } from "./schema";

export const urlGroupLabel = (group: string) => `URL group "${group}"`;

type GroupTarget = Pick<UrlGroupInputs, "group" | "region" | "token">;

/** A call about the group, its failure told about it (a 412 names the limits; a refused delete, the schedules that keep the group). */
async function actOn<T>(target: GroupTarget, action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await act(urlGroupLabel(target.group), action, target, call, "urlGroups");
  } catch (err) {
    if (err instanceof ApiError && err.status === 400 && action === "delete") {
      const publishing = await schedulesPublishingTo(target);
      const which = publishing?.length
        ? `${publishing.length === 1 ? "schedule" : "schedules"} ${publishing.map((id) => `"${id}"`).join(", ")} still ${publishing.length === 1 ? "publishes" : "publish"} to it`
        : "a schedule still publishes to it";
      throw err.about(
        `could not delete ${urlGroupLabel(target.group)} in ${target.region}`,
        `${which} (the service answered 400: ${err.serviceMessage ?? "no message"}); delete the schedule or point it elsewhere, then destroy again`,
      );
    }
    throw err;
  }
}

/** The ids of the schedules whose destination is the group; undefined when they cannot be listed (the refusal is told without them). */
async function schedulesPublishingTo(target: GroupTarget): Promise<string[] | undefined> {
  try {
    const all = await apiClient().schedules({ region: target.region, token: target.token }).list();
    return all.filter((s) => s.destination === target.group).map((s) => s.scheduleId);
  } catch {
    return undefined;
  }
}

const groups = (client: MgmtClient, target: GroupTarget) =>
  client.urlGroups({ region: target.region, token: target.token });

async function readGroup(client: MgmtClient, target: GroupTarget): Promise<UrlGroupRecord | undefined> {
  return ifFound(actOn(target, "read", () => groups(client, target).get(target.group)));
}

const presentOf = (record: UrlGroupRecord | undefined): UrlGroupEndpoint[] => (record?.endpoints ?? []).map(normalized);

function managedGroup(client: MgmtClient, props: UrlGroupOutputs, acting: Acting): ManagedObject {
  return {
    what: `${urlGroupLabel(props.group)} in ${props.region}`,
    managedBy: props.managedBy,
    asking: judgedAs(acting, props),
    settings: client.settings,
  };
}

const groupRef = (client: MgmtClient, target: GroupTarget): ObjectRef => ({
  kind: "urlGroup",
  identity: tokenIdentityOf(client, target.token),
  id: urlGroupId(target),
});

/** Endpoints in the group that the stack does not declare: reported, never adopted. */
const othersOf = (present: UrlGroupEndpoint[], declared: readonly UrlGroupEndpoint[]) =>
  present.filter((p) => !declared.some((d) => d.url === p.url));

function reportOthers(target: GroupTarget, others: UrlGroupEndpoint[]): Promise<void> {
  if (others.length === 0) return Promise.resolve();
  return tellEngine(
    `${urlGroupLabel(target.group)} in ${target.region}: ${others.length} endpoint(s) not declared by this stack, left alone: ${others.map((o) => o.url).join(", ")}`,
  );
}

/**
 * Brings the group's declared endpoints from `present` (the group as just read) and `recorded`
 * (the endpoints the stack declared before) to `inputs`: adds first, so that the group never
 * empties (which deletes it), then removes what the stack no longer declares. Returns the URLs
 * the stack added that it still declares.
 */
async function converge(
  client: MgmtClient,
  inputs: UrlGroupInputs,
  present: UrlGroupEndpoint[],
  recorded: readonly UrlGroupEndpoint[],
  addedBefore: readonly string[],
): Promise<string[]> {
  const toAdd = missingFrom(present, inputs.endpoints);
  if (toAdd.length > 0)
    await actOn(inputs, "add endpoints to", () => groups(client, inputs).addEndpoints(inputs.group, toAdd));
  const newlyAdded = urlsNotIn(toAdd, present);
  const toRemove = urlsNotIn(recorded, inputs.endpoints).filter((url) => present.some((p) => p.url === url));
  if (toRemove.length > 0)
    await actOn(inputs, "remove endpoints from", () => groups(client, inputs).removeEndpoints(inputs.group, toRemove));
  const declared = new Set(inputs.endpoints.map((e) => e.url));
  return [...new Set([...addedBefore, ...newlyAdded])].filter((url) => declared.has(url));
}

/** What an import knows of a group before reading it: where it is (`<region>/<group>`, urlGroupId). */
function importedGroup(id: string): UrlGroupOutputs {
  const { region, name } = regionAndName(id, "URL group");
  return { region, group: name, endpoints: [] };
}

/** The API areas its calls go to (its declaration's `apis`). */
export const APIS: readonly Api[] = ["regional"];

export const urlGroupOperations: pulumi.dynamic.ResourceProvider<UrlGroupInputs, UrlGroupOutputs> = {
  async check(olds, news) {
    const result = checkWithSettings(UrlGroupInputs, news, APIS, news.token);
    if (result.failures?.length) return result;
    const { region, group, token } = news;
    if ([region, group, token].some(isUnknown)) return result;
    // A new group, or one moved to another region or token: one read at the declared region's
    // address refuses another region's token at preview. An unchanged one costs no call.
    const isNew = !olds || Object.keys(olds).length === 0;
    if (!isNew && olds.region === region && olds.token === token) return result;
    const failure = await regionProblem(apiClient(), urlGroupLabel(group), { region, token });
    return failure ? { inputs: result.inputs, failures: [failure] } : result;
  },

  // Declared state against recorded state (refresh keeps it current): no call.
  async diff(_id, olds: UrlGroupOutputs, news: UrlGroupInputs) {
    await assertSameAccount(apiClient(), urlGroupLabel(olds.group), olds, news.token);
    const replaces = (["group", "region"] as const).filter((k) => olds[k] !== news[k]);
    const changes =
      replaces.length > 0 || !sameEndpoints(olds.endpoints ?? [], news.endpoints) || olds.token !== news.token;
    return { changes, replaces, deleteBeforeReplace: true };
  },

  async create(news: UrlGroupInputs) {
    const inputs = UrlGroupInputs.parse(news);
    const client = apiClient();
    // Looked up first: a group that exists is not this stack's to delete, nor its endpoints.
    const found = await readGroup(client, inputs);
    const acting = await actingWith(client, urlGroupLabel(inputs.group), {}, inputs.token);
    recordTakeover(groupRef(client, inputs));
    const present = presentOf(found);
    const addedEndpoints = await converge(client, inputs, present, [], []);
    return {
      id: urlGroupId(inputs),
      outs: withoutUndefined({
        ...inputs,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
        created: found === undefined,
        addedEndpoints,
        otherEndpoints: othersOf(present, inputs.endpoints),
      }),
    };
  },

  async read(id, stored) {
    // Imported by the engine (imported.ts): the group its id names, with mgmt:messagingToken; its
    // endpoints as found become the declared ones, none of them the stack's to remove on destroy.
    const imported = isImport(stored);
    const props: UrlGroupOutputs = imported ? importedGroup(id) : stored!;
    const client = apiClient();
    const acting = await actingWith(client, urlGroupLabel(props.group), props, props.token);
    const record = await ifFound(groups(client, { ...props, token: acting.token }).get(props.group)).catch(
      (err: unknown) => {
        throw revokedTokenError(err, urlGroupLabel(props.group), props.region, acting, props, client.settings);
      },
    );
    if (!record) {
      believeGone(managedGroup(client, props, acting));
      return {};
    }
    const present = presentOf(record);
    const declared = imported ? present : props.endpoints;
    // The declared endpoints still there, with the names the service has now: what an `up` compares.
    const endpoints = present.filter((p) => declared.some((d) => d.url === p.url));
    const others = othersOf(present, declared);
    await reportOthers(props, others);
    const token = props.token === undefined ? undefined : acting.token;
    return {
      id,
      props: withoutUndefined({
        ...props,
        endpoints,
        token,
        created: imported ? false : props.created,
        addedEndpoints: (props.addedEndpoints ?? []).filter((url) => present.some((p) => p.url === url)),
        otherEndpoints: others,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
      }),
      ...(imported && {
        inputs: readInputs<UrlGroupOutputs>({ region: props.region, group: props.group, endpoints }),
      }),
    };
  },

  async update(_id, olds: UrlGroupOutputs, news: UrlGroupInputs) {
    const declared = UrlGroupInputs.parse(news);
    const client = apiClient();
    const acting = await actingWith(client, urlGroupLabel(olds.group), olds, declared.token);
    const inputs = { ...declared, token: acting.token };
    const guard = (err: unknown): never => {
      throw revokedTokenError(err, urlGroupLabel(olds.group), olds.region, acting, olds, client.settings);
    };
    const found = await readGroup(client, inputs).catch(guard);
    // Gone meanwhile (every endpoint removed elsewhere): adding makes it again, and then it is the stack's.
    if (!found) believeGone(managedGroup(client, olds, acting));
    const present = presentOf(found);
    const addedEndpoints = await converge(
      client,
      inputs,
      present,
      olds.endpoints ?? [],
      found ? (olds.addedEndpoints ?? []) : [],
    ).catch(guard);
    return {
      outs: withoutUndefined({
        ...declared,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
        created: found === undefined || olds.created === true,
        addedEndpoints,
        otherEndpoints: othersOf(present, inputs.endpoints),
      }),
    };
  },

  async delete(_id, stored: UrlGroupOutputs) {
    const props = { ...stored, token: latestToken(stored.token) };
    const client = apiClient();
    // Renamed in code (or replaced): the resource that took the group over in this run keeps it.
    if (takenOverThisRun(groupRef(client, props))) return;
    const acting = await actingWith(client, urlGroupLabel(props.group), stored, props.token);
    const target = { ...props, token: acting.token };
    try {
      const found = await readGroup(client, target);
      if (!found) return believeGone(managedGroup(client, props, acting));
      const present = presentOf(found);
      const ours = (props.addedEndpoints ?? []).filter((url) => present.some((p) => p.url === url));
      const leftOver = urlsNotIn(
        present,
        ours.map((url) => ({ url })),
      );
      if (props.created && leftOver.length === 0) {
        await actOn(target, "delete", () => groups(client, target).delete(props.group));
        return;
      }
      if (ours.length > 0)
        await actOn(target, "remove endpoints from", () => groups(client, target).removeEndpoints(props.group, ours));
      const left = leftOver.length;
      if (props.created)
        await tellEngine(
          `${urlGroupLabel(props.group)} in ${props.region}: kept, with ${left} endpoint(s) this stack did not add (destroy removed only its own)`,
        );
      else await sayReleased(urlGroupLabel(props.group));
    } catch (err) {
      if (!isNotFound(err))
        throw revokedTokenError(err, urlGroupLabel(props.group), props.region, acting, stored, client.settings);
      believeGone(managedGroup(client, props, acting));
    }
  },
};
