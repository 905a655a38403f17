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
 * code by value; there the thin forwarding closure of thinProvider.ts is used instead.
 * `PULUMI_MGMT_PROVIDER_FORM=closure` forces the fallback.
 *
 * COMPATIBILITY RULE: both forms name paths inside this package, and those paths are stored in
 * users' state; `refresh`, `up` and `destroy` load them from whatever release is installed then.
 * Never rename or remove any of these, nor what they export:
 * - module form (0.2+): `internal/providers/{searchIndex,messagingBudget,flowControlKey,queueResume}`,
 *   and (0.3+) `internal/providers/messagingQueue`
 * - closure form (0.1+): `internal/runtime` (`configure`), `internal/resources/searchIndex` and
 *   `internal/resources/messagingBudget` (`provider`), `internal/resources/messagingControls`
 *   (`flowControlKeyProvider`, `queueResumeProvider`), and (0.3+) `internal/resources/messagingQueue`
 *   (`messagingQueueProvider`).
 * test/e2e/providerForm.test.ts keeps a stack of the 0.1 form working.
 */
import { existsSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { programSettings } from "./programClient";
import { configure } from "../runtime";
import { thinProvider } from "./thinProvider";

/** Each provider: its module-form name, and where the closure form finds the same code. */
const CLOSURE_FORM = {
  searchIndex: ["resources/searchIndex", "provider"],
  messagingBudget: ["resources/messagingBudget", "provider"],
  flowControlKey: ["resources/messagingControls", "flowControlKeyProvider"],
  queueResume: ["resources/messagingControls", "queueResumeProvider"],
  messagingQueue: ["resources/messagingQueue", "messagingQueueProvider"],
} as const;
export type ProviderName = keyof typeof CLOSURE_FORM;

const chosen = new Map<ProviderName, pulumi.dynamic.ResourceProvider>();

/** The provider object to hand to `pulumi.dynamic.Resource`; one per name, so Pulumi serializes it once. */
export function providerFor(name: ProviderName): pulumi.dynamic.ResourceProvider {
  checkProgramSettings();
  let provider = chosen.get(name);
  if (!provider) {
    const [module, exportName] = CLOSURE_FORM[name];
    provider = installedModule(name) ?? thinProvider(module, exportName);
    chosen.set(name, provider);
  }
  return provider;
}

/**
 * Malformed settings (an address that is not http(s), a negative timeout, a retry count that is
 * not a number) and unknown `mgmt:*` keys fail when a resource is declared, so at `preview` too, even where no resource
 * would call the service then. The provider reads the same config and environment. Checked at
 * every declaration, not once per process: an Automation API driver runs many stacks, each with
 * its own config, in one process (a few config lookups each).
 */
export function checkProgramSettings(): void {
  programSettings();
}

/** Which form `providerFor` serializes in this program (for tests and diagnostics). */
export function providerForm(name: ProviderName): "module" | "closure" {
  return installedModule(name) ? "module" : "closure";
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

/**
 * The exports of a providers/<name> module: the implementation's methods plus `configure`, as
 * plain properties, so that the module's exports object is itself the provider.
 */
export function providerModule(impl: pulumi.dynamic.ResourceProvider): pulumi.dynamic.ResourceProvider {
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
