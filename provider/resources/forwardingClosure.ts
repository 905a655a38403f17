import type * as pulumi from "@pulumi/pulumi";
import type { ProviderName } from "./all";

/**
 * The fallback form of `__provider` (dynamicDoor.ts): nothing but forwarding calls that require
 * the provider module `pulumi-mgmt/internal/providers/<name>` when the provider process runs them.
 * No client, credential, path or library is captured; the path is permanent (dynamicDoor.ts).
 * The closure stored in state is only these calls: this file's name and place are not in it.
 */
export function forwardingClosure(name: ProviderName): pulumi.dynamic.ResourceProvider {
  const load = () => require(`pulumi-mgmt/internal/providers/${name}`);
  return {
    // Short names: this text is stored twice in every resource's state.
    configure: (r) => load().configure(r),
    check: (o, n) => load().check(o, n),
    diff: (i, o, n) => load().diff(i, o, n),
    create: (n) => load().create(n),
    read: (i, p) => load().read(i, p),
    update: (i, o, n) => load().update(i, o, n),
    delete: (i, p) => load().delete(i, p),
  };
}
