import type * as pulumi from "@pulumi/pulumi";
import { configure } from "../runtime";

/**
 * The exports of a providers/<name> module: the implementation's methods plus `configure`, as
 * plain properties, so that the module's exports object is itself the provider (providerRef.ts).
 */
export function providerModule<I, O>(impl: pulumi.dynamic.ResourceProvider<I, O>): pulumi.dynamic.ResourceProvider<I, O> {
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
