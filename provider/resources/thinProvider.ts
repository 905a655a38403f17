import type * as pulumi from "@pulumi/pulumi";

/**
 * The fallback form of `__provider` (providerRef.ts): nothing but forwarding calls that load the
 * implementation by package name when the provider process runs them. No client, credential,
 * path or library is captured. Stacks of release 0.1 carry exactly this text in their state, so
 * the paths it names are permanent (see the compatibility rule in providerRef.ts).
 *
 * `module` names a file under provider/ whose export `exportName` is the implementation.
 */
export function thinProvider(module: string, exportName = "provider"): pulumi.dynamic.ResourceProvider {
  return forwarding(module, exportName);
}

function forwarding(module: string, exportName: string): pulumi.dynamic.ResourceProvider {
  const load = () => require(`pulumi-mgmt/internal/${module}`)[exportName];
  return {
    // Short names: this text is stored twice in every resource's state.
    configure: (r) => require("pulumi-mgmt/internal/runtime").configure(r),
    check: (o, n) => load().check(o, n),
    diff: (i, o, n) => load().diff(i, o, n),
    create: (n) => load().create(n),
    read: (i, p) => load().read(i, p),
    update: (i, o, n) => load().update(i, o, n),
    delete: (i, p) => load().delete(i, p),
  };
}
