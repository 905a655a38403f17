import type * as pulumi from "@pulumi/pulumi";
import { configure } from "../runtime";
import { RESOURCES, type ProviderName } from "./all";

/**
 * The exports of a permanent providers/<module> file (the path users' state requires, see
 * dynamicDoor.ts): the declared operations plus `configure`, as plain properties,
 * so that the module's exports object is itself the provider.
 */
export function permanentModule(module: ProviderName): pulumi.dynamic.ResourceProvider {
  const impl = RESOURCES.find((r) => r.module === module)!.operations;
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
