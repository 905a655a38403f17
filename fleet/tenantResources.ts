/**
 * The tenant program's resources, declared through the `mgmt` plugin rather than as dynamic
 * resources: the same providers serve them (provider/plugin/resourceCalls.ts), and a tenant's
 * engine run then starts the plugin (about 360 modules) instead of the dynamic provider host
 * (about 790), and its state holds no `__provider`. docs/benchmarks.md has the figures.
 *
 * Each is aliased to its dynamic type, so that a tenant stack written by an earlier version moves
 * with no replacement and no API write (test/e2e/pluginMove.test.ts). The tenant program is here
 * too, beside what it declares: tenant.ts (the list's schema) stays free of the Pulumi SDK.
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { ProjectSettings, Workspace } from "@pulumi/pulumi/automation";
import { backendUrlForDisk } from "pulumi-mgmt/internal/automation/stack";
import { installPlugin } from "pulumi-mgmt/internal/plugin/install";
import { PACKAGE, dynamicToken, token } from "pulumi-mgmt/internal/plugin/pulumiTypes";
import type { Tenant } from "./tenant";

const movedFromDynamic = (name: string, opts?: pulumi.CustomResourceOptions): pulumi.CustomResourceOptions => ({
  ...opts,
  aliases: [...(opts?.aliases ?? []), { type: dynamicToken(name) }],
});

/** A search index of a tenant: the inputs the tenant program gives, the outputs it exports. */
export class TenantSearchIndex extends pulumi.CustomResource {
  declare readonly name: pulumi.Output<string>;
  declare readonly endpoint: pulumi.Output<string>;
  constructor(name: string, args: { region: string; type: string }, opts?: pulumi.CustomResourceOptions) {
    super(
      token("SearchIndex"),
      name,
      { ...args, name: undefined, endpoint: undefined },
      movedFromDynamic("SearchIndex", opts),
    );
  }
}

/** The flow control key of a tenant, and the limits pinned on it. */
export class TenantFlowControlKey extends pulumi.CustomResource {
  constructor(
    name: string,
    args: { region: string; key: string; pin?: Record<string, unknown> },
    opts?: pulumi.CustomResourceOptions,
  ) {
    super(token("FlowControlKey"), name, args, movedFromDynamic("FlowControlKey", opts));
  }
}

/** Pulumi.yaml's `plugins` section, which the Automation API's ProjectSettings type leaves out. */
type WithPlugins = ProjectSettings & { plugins?: { providers?: { name: string; path: string; version?: string }[] } };

/**
 * Makes the Pulumi CLI of a tenant's stack find the plugin: its launcher, written into
 * `<workDir>/.mgmt-plugin` (the tenant's own folder, never one another user could have placed) at
 * each run (so that it names this package's plugin after an upgrade), named in the project's
 * `plugins.providers`. (On PATH the engine would find it too, but warn at every run that it uses a
 * plugin from $PATH.) The plugin is found by the package's name, as the dynamic provider host
 * finds the providers' code. A backend address that an earlier version wrote into the project file
 * with its password is written again without it (automation/stack.ts `backendUrlForDisk`).
 */
export async function useTenantPlugin(workspace: Workspace, workDir: string): Promise<void> {
  const dir = path.resolve(workDir, ".mgmt-plugin"); // absolute: Pulumi resolves a relative path against the project's folder
  mkdirSync(dir, { recursive: true });
  // The installed package's own plugin, by the bin its manifest declares.
  const pkg = require.resolve("pulumi-mgmt/package.json");
  const { bin } = JSON.parse(readFileSync(pkg, "utf8")) as { bin: Record<string, string> };
  installPlugin(dir, path.join(path.dirname(pkg), bin[`pulumi-resource-${PACKAGE}`]));
  const settings: WithPlugins = await workspace.projectSettings();
  const others = (settings.plugins?.providers ?? []).filter((p) => p.name !== PACKAGE);
  const ours = settings.plugins?.providers?.find((p) => p.name === PACKAGE);
  const url = settings.backend?.url;
  const backend = url === undefined ? settings.backend : { ...settings.backend, url: backendUrlForDisk(url) };
  if (ours?.path === dir && ours.version === undefined && backend?.url === url) return;
  const plugins = { ...settings.plugins, providers: [...others, { name: PACKAGE, path: dir }] };
  await workspace.saveProjectSettings({ ...settings, ...(backend ? { backend } : {}), plugins } as WithPlugins);
}

/**
 * The program of every tenant's stack: a search index and its flow control policy, through the
 * `mgmt` plugin (the CLI must find it: useTenantPlugin above). The index is
 * auto-named (`<tenant>-search-<8 hex>`): a name drawn for this resource is proof that an index
 * under it is this stack's, so a create cut short by a dead worker is imported on the next run
 * (automation/recovery.ts) instead of being refused as someone else's.
 */
export function tenantProgram(t: Tenant) {
  return async () => {
    const index = new TenantSearchIndex(`${t.id}-search`, { region: t.searchRegion, type: t.plan });
    new TenantFlowControlKey("policy", { region: t.messagingRegion, key: t.flowControlKey, pin: t.pin });
    return { indexName: index.name, indexId: index.id, endpoint: index.endpoint };
  };
}
