import type * as pulumi from "@pulumi/pulumi";
import { configure } from "../runtime";
import type { ProviderName } from "./all";
import type { ResourceDeclaration } from "./declare";

/**
 * The exports of a permanent providers/<module> file (the path users' state requires, see
 * dynamicDoor.ts): the declared operations plus `configure`, as plain properties,
 * so that the module's exports object is itself the provider.
 *
 * It loads that resource's own declaration (`<module>/declaration`, exported as `<module>`), not
 * the list of every resource (all.ts): a dynamic provider process starts for each engine run and
 * loads only the resources its program's state names.
 */
export function permanentModule(module: ProviderName): pulumi.dynamic.ResourceProvider {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const declaration: ResourceDeclaration = require(`./${module}/declaration`)[module];
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
