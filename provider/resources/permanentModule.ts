import type * as pulumi from "@pulumi/pulumi";
import { configure } from "../runtime";

/**
 * The exports of a permanent providers/<name> module (the path users' state requires, see
 * serializedProvider.ts): the implementation's methods plus `configure`, as plain properties, so
 * that the module's exports object is itself the provider.
 */
export function permanentModule<I, O>(
  impl: pulumi.dynamic.ResourceProvider<I, O>,
): pulumi.dynamic.ResourceProvider<I, O> {
  return {
    configure,
    check: impl.check,
    diff: impl.diff,
    create: impl.create,
    read: impl.read,
    update: impl.update,
    delete: impl.delete,
  };
}
