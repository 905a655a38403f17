/**
 * Pulumi's property values over gRPC (google.protobuf.Struct) as plain values. The engine wraps a
 * secret as an object with a signature key; the settings and providers see plain values, and the
 * keys that were secret are named (a stock Node provider would hand the wrapped form to the
 * provider's code, which would then see objects where it checks strings). Unknowns pass through as the engine's sentinel string, which the providers
 * already recognise (validation.ts `isUnknown`). The way back (`toStruct`) wraps the secret keys.
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

import { SECRET_SIG, SIG_KEY } from "../wireSentinels";
export { SECRET_SIG, SIG_KEY };

export type Plain = null | boolean | number | string | Plain[] | { [key: string]: Plain };

const isObject = (v: unknown): v is Record<string, Plain> => typeof v === "object" && v !== null && !Array.isArray(v);

function unwrap(value: Plain, onSecret: () => void): Plain {
  if (Array.isArray(value)) return value.map((v) => unwrap(v, onSecret));
  if (!isObject(value)) return value;
  if (value[SIG_KEY] === SECRET_SIG) {
    onSecret();
    return unwrap(value.value ?? null, onSecret);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrap(v, onSecret)]));
}

/** A request's properties as plain values, with the top-level keys that were secret. */
export function fromStruct(struct: Struct | undefined): { values: Record<string, Plain>; secretKeys: Set<string> } {
  const secretKeys = new Set<string>();
  const values: Record<string, Plain> = {};
  for (const [key, value] of Object.entries((struct?.toJavaScript() ?? {}) as Record<string, Plain>)) {
    values[key] = unwrap(value, () => secretKeys.add(key));
  }
  return { values, secretKeys };
}

/** Top-level nulls are absent values (zod's optional fields take no null): what the providers and functions get. */
export function present(values: Record<string, Plain>): Record<string, Plain> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null));
}

/**
 * A resource's recorded values (its old inputs or outputs) as its provider gets them: present, and
 * without `__provider`. A resource moved from the dynamic resources to the plugin (by an alias of
 * its dynamic type: docs/plugin.md) keeps the dynamic provider's `__provider` in its outputs until
 * the plugin's first read or update of it, which then leaves it out.
 */
export function recorded(values: Record<string, Plain>): Record<string, Plain> {
  const { __provider: _dynamicOnly, ...rest } = present(values);
  return rest;
}

/** A value as a Struct can hold it: `undefined` fields dropped (a provider's optional outputs). */
function defined(value: unknown): Plain {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as Plain);
}

/** Properties for a response: the given top-level keys wrapped as secrets, so that they stay secret in state. */
export function toStruct(values: object, secretKeys: ReadonlySet<string>): Struct {
  const out: Record<string, Plain> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    out[key] = secretKeys.has(key) ? { [SIG_KEY]: SECRET_SIG, value: defined(value) } : defined(value);
  }
  return Struct.fromJavaScript(out);
}
