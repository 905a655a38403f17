/**
 * Check, Diff, Create, Read, Update and Delete of the plugin, served by the very operations the
 * dynamic resources use (provider/resources/<name>/operations.ts): the plugin only translates
 * between the protocol's messages and what those operations take and give. Secrets arrive wrapped
 * and reach the operations plain (properties.ts); what goes back is wrapped again for every key the
 * schema marks secret and every key that arrived secret. Unknowns (previews) reach the operations
 * as the engine's sentinel, which their `check` and `diff` already treat as "not known, send
 * nothing"; a previewed Create or Update calls nothing and answers unknown outputs.
 */
import { createHash } from "node:crypto";
import type { ResourceProvider } from "@pulumi/pulumi/dynamic";
import {
  CheckFailure,
  CheckResponse,
  CreateResponse,
  DiffResponse,
  PropertyDiff,
  ReadResponse,
  UpdateResponse,
  type CheckRequest,
  type CreateRequest,
  type DeleteRequest,
  type DiffRequest,
  type ReadRequest,
  type UpdateRequest,
} from "@pulumi/pulumi/proto/provider_pb";
import { RESOURCES } from "../resources/all";
import { UNKNOWN } from "../resources/validation";
import { PartialFailure, UserError } from "../userError";
import { InitFailed } from "./initFailed";
import { fromStruct, present, recorded, toStruct, type Plain } from "./properties";
import { token } from "./pulumiTypes";
import { resourceSchema, type PackageSchema } from "./schema";

interface Served {
  operations: ResourceProvider;
  /** Output keys the schema marks secret. */
  secretOutputs: ReadonlySet<string>;
  /** Input keys the schema marks secret. */
  secretInputs: ReadonlySet<string>;
  outputKeys: readonly string[];
  /** The inputs a user writes (the schema's; not the ones the front door or `check` fills in). */
  inputKeys: readonly string[];
  internalInputs: readonly string[];
}

const secretKeysOf = (props: PackageSchema["resources"][string]["properties"]) =>
  new Set(
    Object.entries(props)
      .filter(([, p]) => p.secret)
      .map(([k]) => k),
  );

/** The type token of a URN (`urn:pulumi:stack::project::[parent$]type::name`). */
function typeOf(urn: string): string {
  const type = urn.split("::")[2] ?? "";
  return type.slice(type.lastIndexOf("$") + 1);
}

const union = (...sets: ReadonlySet<string>[]) => new Set(sets.flatMap((s) => [...s]));

/**
 * Pulumi's convention for a generated name: the resource's name and a random suffix, here drawn
 * from the engine's random seed for this resource, so a retried Check draws the same name.
 */
function autoNameOf(name: string, seed: Uint8Array): string {
  const base = name.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 55);
  return `${base}-${createHash("sha256").update(seed).digest("hex").slice(0, 8)}`;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function resourceCalls() {
  // The declared resources (resources/all.ts), each served by its own operations: the dynamic door's.
  const resources = new Map(RESOURCES.map((r) => [token(r.type), r]));
  // Each type's part of the schema on its first call: a run uses one or two of them.
  const served = new Map<string, Served>();
  const resourceOf = (urn: string): Served => {
    const type = typeOf(urn);
    const known = served.get(type);
    if (known) return known;
    const r = resources.get(type);
    if (!r)
      throw new UserError(
        `mgmt plugin: no resource type "${type}" (${urn}); the types are ${[...resources.keys()].join(", ")}`,
      );
    const spec = resourceSchema(r);
    const made: Served = {
      operations: r.operations,
      secretOutputs: secretKeysOf(spec.properties),
      secretInputs: secretKeysOf(spec.inputProperties),
      outputKeys: Object.keys(spec.properties),
      inputKeys: Object.keys(spec.inputProperties),
      internalInputs: r.internalInputs,
    };
    served.set(type, made);
    return made;
  };

  async function check(req: CheckRequest): Promise<CheckResponse> {
    const r = resourceOf(req.getUrn());
    const olds = recorded(fromStruct(req.getOlds()).values);
    const { values, secretKeys } = fromStruct(req.getNews());
    const news: Record<string, unknown> = present(values);
    // What the dynamic resources' classes fill in before their `check`: the generated name, the resource's own name.
    if (r.internalInputs.includes("autoName") && news.name === undefined && news.adopt === undefined)
      news.autoName = autoNameOf(req.getName(), req.getRandomseed_asU8());
    if (r.internalInputs.includes("resourceName")) news.resourceName = req.getName();
    const result = r.operations.check ? await r.operations.check(olds, news) : { inputs: news };
    return new CheckResponse()
      .setInputs(toStruct(result.inputs ?? news, union(secretKeys, r.secretInputs)))
      .setFailuresList(
        // A failure of a setting (mgmt:baseUrl) names no input: the engine then prints the reason
        // as the resource's problem, not as "property mgmt:baseUrl value {<nil>}".
        (result.failures ?? []).map((f) =>
          new CheckFailure().setProperty(r.inputKeys.includes(f.property) ? f.property : "").setReason(f.reason),
        ),
      );
  }

  async function diff(req: DiffRequest): Promise<DiffResponse> {
    const r = resourceOf(req.getUrn());
    const olds = recorded(fromStruct(req.getOlds()).values);
    const news = present(fromStruct(req.getNews()).values);
    const result = r.operations.diff
      ? await r.operations.diff(req.getId(), olds, news)
      : { changes: !same(olds, news) };
    const replaces = result.replaces ?? [];
    // The user's inputs that differ from the last ones (the engine sends them; else what is stored): the detailed
    // diff the engine shows, each an update or a replacement. Not the inputs `check` fills in (`before`,
    // `resourceName`), nor an output the service reports for an input left out (an account's plan).
    const oldInputs = req.hasOldInputs() ? recorded(fromStruct(req.getOldInputs()).values) : olds;
    const changed = result.changes === false ? [] : r.inputKeys.filter((k) => !same(oldInputs[k], news[k]));
    const res = new DiffResponse()
      .setChanges(
        result.changes === false
          ? DiffResponse.DiffChanges.DIFF_NONE
          : result.changes
            ? DiffResponse.DiffChanges.DIFF_SOME
            : DiffResponse.DiffChanges.DIFF_UNKNOWN,
      )
      .setReplacesList(replaces)
      .setDeletebeforereplace(result.deleteBeforeReplace ?? false)
      .setDiffsList(changed)
      .setHasdetaileddiff(true);
    for (const key of changed) {
      const kind = replaces.includes(key) ? PropertyDiff.Kind.UPDATE_REPLACE : PropertyDiff.Kind.UPDATE;
      res.getDetaileddiffMap().set(key, new PropertyDiff().setKind(kind).setInputdiff(true));
    }
    return res;
  }

  /** A preview's answer: the inputs, every other output unknown until `up`. */
  const previewed = (r: Served, inputs: Record<string, Plain>) => ({
    ...Object.fromEntries(r.outputKeys.map((k) => [k, UNKNOWN])),
    ...inputs,
  });

  /** A create or update that did part of its work: answered as created but failed to initialise (initFailed.ts). */
  const partway =
    (r: Served, inputs: ReturnType<typeof fromStruct>, secrets: ReadonlySet<string>) =>
    (err: unknown): never => {
      if (!(err instanceof PartialFailure)) throw err;
      const outs = recorded(err.properties as Record<string, Plain>);
      throw new InitFailed(
        err,
        toStruct(outs, secrets),
        toStruct(inputs.values, union(inputs.secretKeys, r.secretInputs)),
      );
    };

  async function create(req: CreateRequest): Promise<CreateResponse> {
    const r = resourceOf(req.getUrn());
    const { values, secretKeys } = fromStruct(req.getProperties());
    const secrets = union(secretKeys, r.secretOutputs);
    if (req.getPreview())
      return new CreateResponse().setId("").setProperties(toStruct(previewed(r, present(values)), secrets));
    const { id, outs } = await r.operations.create(present(values)).catch(partway(r, { values, secretKeys }, secrets));
    return new CreateResponse().setId(id).setProperties(toStruct(outs ?? {}, secrets));
  }

  async function read(req: ReadRequest): Promise<ReadResponse> {
    const r = resourceOf(req.getUrn());
    const { values, secretKeys } = fromStruct(req.getProperties());
    const result = r.operations.read
      ? await r.operations.read(req.getId(), recorded(values))
      : { id: req.getId(), props: values };
    // No id: the object is gone (the operations already applied the identity guard, identity.ts).
    if (!result.id) return new ReadResponse().setId("");
    const res = new ReadResponse()
      .setId(result.id)
      .setProperties(toStruct(result.props ?? {}, union(secretKeys, r.secretOutputs)));
    if (result.inputs)
      res.setInputs(toStruct(result.inputs, union(fromStruct(req.getInputs()).secretKeys, r.secretInputs)));
    return res;
  }

  async function update(req: UpdateRequest): Promise<UpdateResponse> {
    const r = resourceOf(req.getUrn());
    const olds = fromStruct(req.getOlds());
    const news = fromStruct(req.getNews());
    const secrets = union(olds.secretKeys, news.secretKeys, r.secretOutputs);
    // As the engine does for a provider without previews (the dynamic resources'): the update may
    // change any output (a rotation, the token), so none is claimed as it was.
    if (req.getPreview())
      return new UpdateResponse().setProperties(toStruct(previewed(r, present(news.values)), secrets));
    if (!r.operations.update) throw new UserError(`mgmt plugin: ${typeOf(req.getUrn())} changes only by replacement`);
    const { outs } = await r.operations
      .update(req.getId(), recorded(olds.values), present(news.values))
      .catch(partway(r, news, secrets));
    return new UpdateResponse().setProperties(toStruct(outs ?? {}, secrets));
  }

  async function remove(req: DeleteRequest): Promise<void> {
    const r = resourceOf(req.getUrn());
    if (r.operations.delete) await r.operations.delete(req.getId(), recorded(fromStruct(req.getProperties()).values));
  }

  return { check, diff, create, read, update, remove };
}
