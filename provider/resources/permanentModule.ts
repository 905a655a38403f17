import type * as pulumi from "@pulumi/pulumi";
import { configure } from "../runtime";
import type { ResourceDeclaration } from "./declare";

/**
 * The exports of a permanent providers/<module> file (the path users' state requires, see
 * dynamicDoor.ts): the declared operations plus `configure`, as plain properties,
 * so that the module's exports object is itself the provider.
 *
 * Each providers/<module> file passes its own declaration, not a name looked up in the list of
 * every resource (all.ts): a dynamic provider process starts for each engine run and loads only
 * the resources its program's state names (test/unit/permanentModules.test.ts holds each file to
 * the list).
 */
export function permanentModule(declaration: ResourceDeclaration): pulumi.dynamic.ResourceProvider {
  const impl = declaration.operations;
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
