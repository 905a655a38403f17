/**
 * The modules the plugin requires by a computed name, for its single executable (scripts/release.ts).
 * In a Node.js single executable application require() loads only Node's builtins, and a bundler
 * bundles only the names it can read: Construct's SDK modules are named in a table
 * (provider/plugin/constructAdapter.ts), so they are required here by literal name, which bundles
 * them, and the executable's require() serves them from this table (seaEntry.ts). The release
 * command refuses to build when constructAdapter.ts names a module missing here.
 */
export const SEA_MODULES_KEY = "__pulumiMgmtSeaModules";

export const SEA_MODULES: Record<string, () => unknown> = {
  "@pulumi/pulumi/runtime/settings": () => require("@pulumi/pulumi/runtime/settings"),
  "@pulumi/pulumi/runtime/config": () => require("@pulumi/pulumi/runtime/config"),
  "@pulumi/pulumi/runtime/state": () => require("@pulumi/pulumi/runtime/state"),
  "@pulumi/pulumi/provider/server": () => require("@pulumi/pulumi/provider/server"),
  "@pulumi/pulumi/runtime/rpc": () => require("@pulumi/pulumi/runtime/rpc"),
};
