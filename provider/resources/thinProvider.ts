import type * as pulumi from "@pulumi/pulumi";

/**
 * The object Pulumi serializes into every resource's state (`__provider`): nothing but forwarding
 * calls that load the implementation by package name when the provider process runs them.
 * No client, credential, path or library is captured, so it stays a few hundred bytes per
 * method and an implementation fix reaches existing stacks without a replacement.
 *
 * `module` names a file under provider/ whose export `exportName` is the implementation.
 */
export function thinProvider(module: string, exportName = "provider"): pulumi.dynamic.ResourceProvider {
  const load = () => require(`pulumi-mgmt/internal/${module}`)[exportName];
  return {
    configure: (req) => require("pulumi-mgmt/internal/runtime").configure(req),
    check: (olds, news) => load().check(olds, news),
    diff: (id, olds, news) => load().diff(id, olds, news),
    create: (inputs) => load().create(inputs),
    read: (id, props) => load().read(id, props),
    update: (id, olds, news) => load().update(id, olds, news),
    delete: (id, props) => load().delete(id, props),
  };
}
