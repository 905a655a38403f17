/**
 * What Pulumi serializes into every resource's state as `__provider`, twice (inputs and outputs).
 *
 * Preferred form: the exports object of a two-line module of the installed package,
 * `pulumi-mgmt/internal/providers/<name>`. Pulumi's closure serializer writes a captured module
 * as `require("<package>/<subpath>")` when the module's real path runs through
 * `node_modules/<package>/` and the package's `exports` map names the file: a few hundred bytes,
 * and every fix of the installed release reaches existing stacks.
 *
 * Fallback: where the module's real path does not run through `node_modules/pulumi-mgmt/` (pnpm's
 * `.pnpm` store, Yarn Plug'n'Play, a linked checkout), the serializer would copy the module's
 * code by value; there the thin forwarding closure of forwardingClosure.ts is used instead, which
 * requires the same module when it runs. `PULUMI_MGMT_PROVIDER_FORM=closure` forces it.
 *
 * PERMANENT PATHS: from 0.1.0 on, both forms name `pulumi-mgmt/internal/providers/<name>` in users'
 * state, and `refresh`, `up` and `destroy` load it from whatever release is installed then. Never
 * rename or remove `internal/providers/<module>` of any resource of resources/all.ts (each
 * declaration's `module`), and keep each one's exports object a provider (`permanentModule`). The
 * files behind them (this one, forwardingClosure.ts, permanentModule.ts) are not in state and may move.
 */
import { existsSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { MockMonitor } from "@pulumi/pulumi/runtime/mocks";
import { MgmtClient } from "../api/client";
import { RESOURCES, type ProviderName } from "./all";
import type { ResourceDeclaration } from "./declare";
import { programSettings } from "./programClient";
import { forwardingClosure } from "./forwardingClosure";

const chosen = new Map<ProviderName, pulumi.dynamic.ResourceProvider>();

/**
 * The provider object to hand to `pulumi.dynamic.Resource`; one per name, so Pulumi serializes it
 * once. A setting the resource's calls need that is missing fails here, in the program, as one
 * plain line: left to each resource's `check`, every resource (and a function call beside them)
 * reported it again, wrapped by the engine as "property mgmt:baseUrl value {<nil>} has a problem".
 * `token`: the resource's own token input, if it has one (then no default token is needed).
 */
export function providerFor(
  resource: ResourceDeclaration<ProviderName>,
  token?: unknown,
): pulumi.dynamic.ResourceProvider {
  const name = resource.module;
  checkProgramSettings([name], token);
  let provider = chosen.get(name);
  if (!provider) {
    provider = installedModule(name) ?? forwardingClosure(name);
    chosen.set(name, provider);
  }
  return provider;
}

/** Which form `providerFor` serializes in this program (for tests and diagnostics). */
export function providerForm(name: ProviderName): "module" | "closure" {
  return installedModule(name) ? "module" : "closure";
}

/**
 * Malformed settings (an address that is not http(s), a negative timeout, a retry count that is
 * not a number), unknown `mgmt:*` keys and settings the declared `resources`' calls need but
 * nobody gave fail when a resource is declared, so at `preview` too, even where no resource
 * would call the service then. The provider reads the same config and environment. Checked at
 * every declaration, not once per process: an Automation API driver runs many stacks, each with
 * its own config, in one process (a few config lookups each).
 */
export function checkProgramSettings(resources: readonly ProviderName[] = [], token?: unknown): void {
  const settings = programSettings();
  // Under `pulumi.runtime.setMocks` (a user's unit tests) no provider runs, so nothing needs them.
  if (pulumi.runtime.getMonitor() instanceof MockMonitor) return;
  const apis = [...new Set(RESOURCES.filter((r) => resources.includes(r.module)).flatMap((r) => r.apis))];
  new MgmtClient(settings).assertConfigured(apis, token === undefined || token === null ? undefined : "given");
}

function installedModule(name: ProviderName): pulumi.dynamic.ResourceProvider | undefined {
  if (process.env.PULUMI_MGMT_PROVIDER_FORM === "closure") return undefined;
  const manifest = installedManifest(process.cwd());
  if (!manifest) return undefined;
  let file: string;
  try {
    file = realpathSync(createRequire(manifest).resolve(`pulumi-mgmt/internal/providers/${name}`));
  } catch {
    return undefined;
  }
  // What the serializer will see: the module's real path, relative to the program's directory.
  const parts = path.relative(process.cwd(), file).split(path.sep);
  const at = parts.indexOf("node_modules");
  if (at < 0 || parts[at + 1] !== "pulumi-mgmt") return undefined;
  return require(file) as pulumi.dynamic.ResourceProvider;
}

/**
 * The pulumi-mgmt a project in `dir` has installed: the nearest node_modules/pulumi-mgmt. (Not
 * `require.resolve`: inside this package's own checkout Node resolves its name to the checkout.)
 */
function installedManifest(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    const manifest = path.join(d, "node_modules", "pulumi-mgmt", "package.json");
    if (existsSync(manifest)) return manifest;
    if (path.dirname(d) === d) return undefined;
  }
}
