/**
 * The plugin's Invoke: every function of functions.ts (`mgmt:index:getX`) served by the very
 * function the TypeScript package exports (provider/functions/getX.ts), with the provider's
 * configuration (Configure). The plugin only translates: arguments arrive as a Struct (secrets
 * wrapped) and are checked with the function's zod schema, each bad field a CheckFailure that
 * names it, before anything is sent (the SDKs print them as one line: "Invoke of 'mgmt:index:getQueue'
 * failed: region: ... (region)"); a list comes back as `{ items }`; every field the schema marks
 * secret (a record's tokens) comes back wrapped secret, and the whole answer when an argument
 * arrived secret, as Pulumi does for anything computed from a secret.
 */
import { CheckFailure, InvokeResponse, type InvokeRequest } from "@pulumi/pulumi/proto/provider_pb";
import { functionsUseProviderConfig } from "../resources/programClient";
import { checkWith } from "../resources/validation";
import { InternalError, UserError } from "../userError";
import { FUNCTIONS } from "../functions/all";
import { SECRET_SIG, SIG_KEY, fromStruct, present, toStruct } from "./properties";
import { token, type PropertySpec, type TypeSpec } from "./pulumiTypes";
import type { PackageSchema } from "./schema";

type Types = PackageSchema["types"];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A value with every field its type marks secret wrapped in the secret signature, however deep (lists' items). */
function sealed(value: unknown, type: TypeSpec, types: Types): unknown {
  if (type.type === "array" && type.items && Array.isArray(value))
    return value.map((item) => sealed(item, type.items!, types));
  const named = types[type.$ref?.replace(/^#\/types\//, "") ?? ""];
  return named && "properties" in named && isRecord(value) ? sealedFields(value, named.properties, types) : value;
}

function sealedFields(value: Record<string, unknown>, properties: Record<string, PropertySpec>, types: Types) {
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => {
      const spec = properties[key];
      if (!spec) return [key, field];
      const inner = sealed(field, spec, types);
      return [key, spec.secret && inner !== undefined ? { [SIG_KEY]: SECRET_SIG, value: inner } : inner];
    }),
  );
}

/** `schema`: the package schema, asked for on the first invoke (its functions' secret fields). */
export function invokeCalls(schema: () => PackageSchema) {
  // No program runs in the plugin: the functions' settings are the provider's (Configure).
  functionsUseProviderConfig();
  const functions = new Map(FUNCTIONS.map((f) => [token(f.name), f]));

  return async function invoke(req: InvokeRequest): Promise<InvokeResponse> {
    const f = functions.get(req.getTok());
    if (!f)
      throw new UserError(
        `mgmt plugin: no function "${req.getTok()}"; the functions are ${[...functions.keys()].join(", ")}`,
      );
    const { values, secretKeys } = fromStruct(req.getArgs());
    const args = present(values);
    const checked = checkWith(f.args, args);
    if (checked.failures?.length)
      return new InvokeResponse().setFailuresList(
        checked.failures.map((failure) => new CheckFailure().setProperty(failure.property).setReason(failure.reason)),
      );
    const result = await f.run(args);
    const answer = f.list ? { items: result } : result;
    if (!isRecord(answer)) throw new InternalError(`${f.name} answered no object (${typeof answer})`);
    const { functions: specs, types } = schema();
    const returned = sealedFields(answer, specs[req.getTok()].outputs.properties, types);
    const everything = new Set(secretKeys.size > 0 ? Object.keys(returned) : []);
    return new InvokeResponse().setReturn(toStruct(returned, everything));
  };
}
