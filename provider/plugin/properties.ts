/**
 * Pulumi's property values over gRPC (google.protobuf.Struct) as plain values and back. The engine
 * wraps a secret as an object with a signature key and an unknown (a preview's "known after
 * apply") as a sentinel string; the providers see plain values, and what was secret goes back
 * secret. (Stock Node providers hand the wrapped form to the provider: the item 2.)
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

/** Pulumi's sentinels (sdk/go/common/resource/properties.go). */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

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

/** Plain values as a response's properties, the keys in `secret` wrapped as secrets. */
export function toStruct(values: Record<string, unknown>, secret: Iterable<string> = []): Struct {
  const out: Record<string, unknown> = {};
  const secretKeys = new Set(secret);
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    out[key] = secretKeys.has(key) ? { [SIG_KEY]: SECRET_SIG, value } : value;
  }
  return Struct.fromJavaScript(out as Parameters<typeof Struct.fromJavaScript>[0]);
}

/** True for a value a preview does not know yet, anywhere inside. */
export function hasUnknown(value: Plain): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(hasUnknown);
  return isObject(value) && Object.values(value).some(hasUnknown);
}
