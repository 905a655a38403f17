/**
 * How a create or update that did part of its work fails (PartialFailure, userError.ts): with the
 * object's id and its outputs as they now are, so that the engine keeps the object in the stack
 * and the next `up` updates it, instead of creating or adopting it again.
 */
import { PartialFailure } from "../userError";

/**
 * The failure `cause`, after the object `id` got the outputs `outs`. `news` are the call's inputs
 * as the door passed them: through the dynamic door they carry `__provider`, the code the host
 * loads this resource's provider from, which must be among the recorded outputs for a later
 * refresh or destroy to run (the host adds it to a successful answer, not to a failed one).
 */
export function failedPartway(cause: unknown, id: string, outs: object, news: unknown): PartialFailure {
  if (cause instanceof PartialFailure) return cause;
  const provider = (news as { __provider?: unknown } | undefined)?.__provider;
  // As JSON: the dynamic host puts them in a protobuf Struct, which takes no `undefined`.
  const properties = JSON.parse(JSON.stringify(outs)) as Record<string, unknown>;
  if (provider !== undefined) properties.__provider = provider;
  return new PartialFailure(id, properties, cause);
}
