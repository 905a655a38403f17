import type * as pulumi from "@pulumi/pulumi";

/**
 * The object Pulumi serializes into every resource's state (`__provider`): nothing but forwarding
 * calls that load the implementation by package name when the provider process runs them.
 * No client, credential, path or library is captured, so it stays a few hundred bytes per
 * method and an implementation fix reaches existing stacks without a replacement.
 *
 * `module` names a file under provider/ whose export `exportName` is the implementation.
 */
const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

export function thinProvider(module: string, exportName = "provider"): pulumi.dynamic.ResourceProvider {
  // One object per implementation: Pulumi caches a provider's serialization by object identity,
  // and serializing a closure is the costliest part of declaring a resource.
  const key = `${module}#${exportName}`;
  let provider = providers.get(key);
  if (!provider) {
    provider = forwarding(module, exportName);
    providers.set(key, provider);
  }
  return provider;
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
