/**
 * Everything the plugin's Construct relies on that the Pulumi SDK does not publish, in one place.
 * A component made in the plugin registers itself and its children with the engine's resource
 * monitor through the SDK's runtime, which must first be pointed at that monitor. The steps are
 * those of @pulumi/pulumi's own provider server (provider/server.js: `construct` and
 * `configureRuntime`, SDK 3.248): a fresh local store per call (runtime/state `withLocalStorage`),
 * `settings.resetOptions` and `awaitFeatureSupport`, `config.setAllConfig`, the inputs through
 * `deserializeInputs` (secrets and dependencies as Outputs), the state through
 * `rpc.serializeResourceProperties`, and `settings.waitForRPCs` before answering.
 *
 * Every module is required when Construct is called, never on the plugin's load path.
 * `constructAdapterProblems()` names what a loaded SDK no longer has; sdkAdapterProblems()
 * (provider/automation/sdkAdapter.ts) reports it, so the matrix of SDK versions checks it too.
 */
import type * as Pulumi from "@pulumi/pulumi";
import { Struct, type JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import { ConstructResponse, type ConstructRequest } from "@pulumi/pulumi/proto/provider_pb";
import { UserError } from "../userError";

/** The internal functions used, by module, as the SDK defines them (all marked @internal there, so untyped). */
interface Internals {
  settings: {
    resetOptions(
      project: string,
      stack: string,
      parallel: number,
      engineAddr: string,
      monitorAddr: string,
      preview: boolean,
      organization: string,
    ): void;
    awaitFeatureSupport(): Promise<void>;
    waitForRPCs(): Promise<void>;
  };
  config: { setAllConfig(config: Record<string, string>, secretKeys?: string[]): void };
  /**
   * A fresh store per call: `withLocalStorage` since about SDK 3.150; before it, the same thing
   * spelled out (`asyncLocalStorage.run(new LocalStore(), ...)`, as SDK 3.139's server does).
   */
  state: {
    withLocalStorage?<T>(run: () => Promise<T>): Promise<T>;
    asyncLocalStorage?: { run<T>(store: unknown, run: () => Promise<T>): Promise<T> };
    LocalStore?: new () => unknown;
  };
  server: {
    deserializeInputs(
      inputs: Struct | undefined,
      dependencies: ReturnType<ConstructRequest["getInputdependenciesMap"]>,
    ): Promise<Record<string, unknown>>;
  };
  rpc: {
    serializeResourceProperties(
      label: string,
      props: Record<string, unknown>,
    ): Promise<[Record<string, JavaScriptValue>, Map<string, Set<Pulumi.Resource>>]>;
  };
}

const USED: { [M in keyof Internals]: { module: string; functions: (keyof Internals[M])[] } } = {
  settings: {
    module: "@pulumi/pulumi/runtime/settings",
    functions: ["resetOptions", "awaitFeatureSupport", "waitForRPCs"],
  },
  config: { module: "@pulumi/pulumi/runtime/config", functions: ["setAllConfig"] },
  state: { module: "@pulumi/pulumi/runtime/state", functions: [] },
  server: { module: "@pulumi/pulumi/provider/server", functions: ["deserializeInputs"] },
  rpc: { module: "@pulumi/pulumi/runtime/rpc", functions: ["serializeResourceProperties"] },
};

/** The SDK modules Construct requires by name (the single executable serves them from its bundle: scripts/seaModules.ts). */
export const CONSTRUCT_MODULES: readonly string[] = Object.values(USED).map((u) => u.module);

/** "module.function" for each internal function the loaded SDK lacks. */
export function constructAdapterProblems(): string[] {
  const missing = Object.values(USED).flatMap(({ module, functions }) => {
    const loaded: Record<string, unknown> = require(module);
    return functions.filter((f) => typeof loaded[String(f)] !== "function").map((f) => `${module}.${String(f)}`);
  });
  if (!localStore(require(USED.state.module))) missing.push(`${USED.state.module}.withLocalStorage`);
  return missing;
}

/** Runs a call in a store of its own, as the SDK's server does; undefined when this SDK has neither way. */
function localStore(state: Internals["state"]): (<T>(run: () => Promise<T>) => Promise<T>) | undefined {
  if (typeof state.withLocalStorage === "function") return state.withLocalStorage.bind(state);
  const { asyncLocalStorage, LocalStore } = state;
  if (asyncLocalStorage && typeof LocalStore === "function")
    return (run) => asyncLocalStorage.run(new LocalStore(), run);
  return undefined;
}

function internals(): Internals {
  const missing = constructAdapterProblems();
  if (missing.length > 0)
    throw new UserError(
      `mgmt plugin: MessagingControls cannot be constructed with this @pulumi/pulumi (it lacks ${missing.join(", ")}): install the @pulumi/pulumi version pulumi-mgmt depends on`,
    );
  return {
    settings: require(USED.settings.module),
    config: require(USED.config.module),
    state: require(USED.state.module),
    server: require(USED.server.module),
    rpc: require(USED.rpc.module),
  };
}

/** What a component made by `build` gives back: its URN and its outputs (Inputs, serialized by the SDK). */
export interface Built {
  urn: Pulumi.Output<string>;
  state: Record<string, unknown>;
}

/**
 * The component's options as the engine sent them, rebuilt as the SDK's own provider server
 * rebuilds them (`@pulumi/pulumi`'s provider/server.js `construct`): parent, providers, dependencies,
 * protect, aliases (an alias spec's type too, which that server drops), ignoreChanges,
 * replaceOnChanges, customTimeouts, retainOnDelete and deletedWith. Not resource hooks nor a
 * replacement trigger: their decoding is SDK-internal and newer than the oldest SDK we support.
 */
function componentOptions(pulumi: typeof Pulumi, req: ConstructRequest): Pulumi.ComponentResourceOptions {
  const providers: Record<string, Pulumi.ProviderResource> = {};
  req.getProvidersMap().forEach((ref, pkg) => (providers[pkg] = new pulumi.DependencyProviderResource(ref)));
  const aliases = req.getAliasesList().map((alias): string | Pulumi.Alias => {
    if (alias.hasUrn()) return alias.getUrn();
    const spec = alias.getSpec()!;
    return {
      ...(spec.getName() ? { name: spec.getName() } : {}),
      ...(spec.getType() ? { type: spec.getType() } : {}),
      ...(spec.getProject() ? { project: spec.getProject() } : {}),
      ...(spec.getStack() ? { stack: spec.getStack() } : {}),
      ...(spec.hasParenturn()
        ? { parent: spec.getParenturn() }
        : spec.getNoparent()
          ? { parent: pulumi.rootStackResource }
          : {}),
    };
  });
  const timeouts = req.getCustomtimeouts();
  return {
    parent: req.getParent() ? new pulumi.DependencyResource(req.getParent()) : undefined,
    providers,
    dependsOn: req.getDependenciesList().map((urn) => new pulumi.DependencyResource(urn)),
    protect: req.getProtect(),
    aliases,
    ignoreChanges: req.getIgnorechangesList(),
    replaceOnChanges: req.getReplaceonchangesList(),
    ...(timeouts
      ? {
          customTimeouts: {
            ...(timeouts.getCreate() ? { create: timeouts.getCreate() } : {}),
            ...(timeouts.getUpdate() ? { update: timeouts.getUpdate() } : {}),
            ...(timeouts.getDelete() ? { delete: timeouts.getDelete() } : {}),
          },
        }
      : {}),
    ...(req.getRetainondelete() ? { retainOnDelete: true } : {}),
    ...(req.getDeletedwith() ? { deletedWith: new pulumi.DependencyResource(req.getDeletedwith()) } : {}),
  };
}

/**
 * Runs `build` as a program of the engine that sent `req` (its monitor, project, stack, preview
 * flag and config), with the component's inputs as the SDK deserializes them and its options, and
 * answers once every registration it started is done.
 */
export function constructWithRuntime(
  pulumi: typeof Pulumi,
  engineAddress: string,
  req: ConstructRequest,
  build: (inputs: Record<string, unknown>, opts: Pulumi.ComponentResourceOptions) => Built,
): Promise<ConstructResponse> {
  const sdk = internals();
  return localStore(sdk.state)!(async () => {
    sdk.settings.resetOptions(
      req.getProject(),
      req.getStack(),
      req.getParallel(),
      engineAddress,
      req.getMonitorendpoint(),
      req.getDryrun(),
      req.getOrganization(),
    );
    await sdk.settings.awaitFeatureSupport();
    const config: Record<string, string> = {};
    req.getConfigMap().forEach((value, key) => (config[key] = value));
    sdk.config.setAllConfig(config, req.getConfigsecretkeysList());
    const inputs = await sdk.server.deserializeInputs(req.getInputs(), req.getInputdependenciesMap());
    const built = build(inputs, componentOptions(pulumi, req));
    const res = new ConstructResponse();
    res.setUrn(await new Promise<string>((resolve) => built.urn.apply(resolve)));
    const [state, dependencies] = await sdk.rpc.serializeResourceProperties(
      `construct(${req.getType()}, ${req.getName()})`,
      built.state,
    );
    for (const [key, resources] of dependencies) {
      const urns = await Promise.all([...resources].map((r) => new Promise<string>((resolve) => r.urn.apply(resolve))));
      res.getStatedependenciesMap().set(key, new ConstructResponse.PropertyDependencies().setUrnsList(urns));
    }
    res.setState(Struct.fromJavaScript(state));
    await sdk.settings.waitForRPCs();
    return res;
  });
}
