/**
 * The engine's calls to this package's providers, without the engine: a program declared under
 * Pulumi's mocks gives each resource's inputs as the engine would receive them, and the same
 * provider modules the dynamic provider process loads are called in the engine's order (check;
 * create, or diff and update; read; delete) over real HTTP to the emulator.
 *
 * Each operation gets what the engine gives it, a provider process of its own: the provider
 * modules are loaded afresh (Jest's isolated module registry) and configured, and the state kept
 * for one run (globalThis, provider/resources/takeovers.ts and identity.ts) starts empty.
 *
 * For grids where the engine adds nothing (every operation under every fault, every bad input):
 * an engine run costs seconds of CPU before it does anything. Each promise about `up`, `refresh`
 * and `destroy` keeps at least one representative case through the real engine beside it.
 */
import * as pulumi from "@pulumi/pulumi";
import type { MgmtConfig } from "../../provider/automation";
import { SETTINGS_KEYS } from "../../provider/config";

const PROVIDER_KEY = "__provider";
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/** The provider module each dynamic type is served by (provider/providers/: what state refers to). */
const MODULES: Record<string, string> = {
  "pulumi-nodejs:dynamic/mgmt:SearchIndex": "searchIndex",
  "pulumi-nodejs:dynamic/mgmt:MessagingAccount": "messagingAccount",
  "pulumi-nodejs:dynamic/mgmt:MessagingBudget": "messagingBudget",
  "pulumi-nodejs:dynamic/mgmt:DatabaseBudget": "databaseBudget",
  "pulumi-nodejs:dynamic/mgmt:FlowControlKey": "flowControlKey",
  "pulumi-nodejs:dynamic/mgmt:MessagingQueue": "messagingQueue",
};

type Providers = (type: string) => pulumi.dynamic.ResourceProvider;

/** A new "provider process": the provider modules loaded afresh and configured with `settings`. */
async function providerProcess(settings: MgmtConfig): Promise<Providers> {
  for (const sym of Object.getOwnPropertySymbols(globalThis)) {
    if (sym.description?.startsWith("pulumi-mgmt.")) delete (globalThis as Record<symbol, unknown>)[sym];
  }
  const config = configOf(settings);
  const modules = new Map<string, pulumi.dynamic.ResourceProvider>();
  jest.isolateModules(() => {
    for (const name of new Set(Object.values(MODULES))) modules.set(name, require(`../../provider/providers/${name}`));
  });
  // Every module shares the one runtime module of this registry: configuring one configures all.
  await modules.get("searchIndex")!.configure!({ config } as unknown as pulumi.dynamic.ConfigureRequest);
  return (type) => {
    const provider = modules.get(MODULES[type] ?? "");
    if (!provider) throw new Error(`no provider module for ${type}`);
    return provider;
  };
}

/** Secrets as the dynamic provider receives them (it does not accept secrets: plain values). */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (o[SECRET_SIG] !== undefined && "value" in o) return plain(o.value);
    return Object.fromEntries(
      Object.entries(o)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, plain(v)]),
    );
  }
  return value;
}

interface Declared {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

/** `mgmt:*` config from settings. */
function configOf(settings: MgmtConfig): Map<string, string> {
  const config = new Map<string, string>();
  for (const [name, value] of Object.entries(settings)) {
    const key = SETTINGS_KEYS[name as keyof typeof SETTINGS_KEYS]?.config;
    if (key && value !== undefined) config.set(key, String(value));
  }
  return config;
}

/**
 * The custom resources of this package a program declares, with their inputs, under the stack's
 * `mgmt:*` config (which declarations check); a throw of the program is returned as `error`.
 */
export async function declared(
  program: () => unknown,
  settings: MgmtConfig,
): Promise<{ resources: Declared[]; error?: Error }> {
  const resources: Declared[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        if (MODULES[args.type])
          resources.push({ type: args.type, name: args.name, inputs: plain(args.inputs) as Record<string, unknown> });
        return { id: `${args.name}-mock`, state: args.inputs };
      },
      call: () => ({}),
    },
    "project",
    "stack",
    true,
  );
  pulumi.runtime.setAllConfig(Object.fromEntries(configOf(settings)));
  let error: Error | undefined;
  try {
    program();
  } catch (err) {
    error = err as Error;
  }
  // Every registration reaches the mocks before this resolves.
  await pulumi.runtime.disconnect();
  return { resources, error };
}

interface State {
  type: string;
  id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

/** A check failure, as the engine reports it. */
export class CheckFailed extends Error {}

/**
 * One stack's resources and the engine's calls on them: `up(program)` (check, then create, or
 * diff and update; a resource no longer declared is deleted), `refresh()` (read; no id drops
 * it), `destroy()` (delete, last declared first).
 */
export class ProviderStack {
  readonly state = new Map<string, State>();

  /** `settings`: the stack's `mgmt:*` config. */
  constructor(private readonly settings: MgmtConfig) {}

  async up(program: () => unknown): Promise<void> {
    const { resources, error } = await declared(program, this.settings);
    if (error) throw error;
    const providerOf = await providerProcess(this.settings);
    // Side by side, as the engine runs resources that do not depend on each other.
    const steps = await Promise.allSettled(resources.map((r) => this.step(providerOf(r.type), r)));
    for (const [i, step] of steps.entries())
      if (step.status === "fulfilled") this.state.set(resources[i].name, step.value);
    const failed = steps.find((x): x is PromiseRejectedResult => x.status === "rejected");
    if (failed) throw failed.reason;
    const kept = new Set(resources.map((r) => r.name));
    const gone = [...this.state].filter(([name]) => !kept.has(name));
    await Promise.all(gone.map(([, s]) => providerOf(s.type).delete!(s.id, { ...s.outputs, [PROVIDER_KEY]: "mock" })));
    for (const [name] of gone) this.state.delete(name);
  }

  /** One resource's step of an `up`: check, then create, or diff and (if it changed) update. */
  private async step(provider: pulumi.dynamic.ResourceProvider, r: Declared): Promise<State> {
    const old = this.state.get(r.name);
    const news = { ...r.inputs, [PROVIDER_KEY]: "mock" };
    const checked = await provider.check!(old?.inputs ?? {}, news);
    if (checked.failures?.length)
      throw new CheckFailed(checked.failures.map((f) => `${r.name}: ${f.property}: ${f.reason}`).join("; "));
    const inputs = checked.inputs ?? news;
    if (!old) {
      const made = await provider.create(inputs);
      return { type: r.type, id: made.id, inputs, outputs: made.outs ?? {} };
    }
    const diff = await provider.diff!(old.id, { ...old.outputs, [PROVIDER_KEY]: "mock" }, inputs);
    if (diff.replaces?.length)
      throw new Error(`${r.name}: a replacement (${diff.replaces.join(", ")}) is not what this harness runs`);
    if (diff.changes === false) return { ...old, inputs };
    const updated = await provider.update!(old.id, { ...old.outputs, [PROVIDER_KEY]: "mock" }, inputs);
    return { ...old, inputs, outputs: updated.outs ?? old.outputs };
  }

  async refresh(): Promise<void> {
    const providerOf = await providerProcess(this.settings);
    const all = [...this.state];
    const reads = await Promise.all(
      all.map(([, s]) => providerOf(s.type).read!(s.id, { ...s.outputs, [PROVIDER_KEY]: "mock" })),
    );
    for (const [i, [name, s]] of all.entries()) {
      const read = reads[i];
      if (!read.id) this.state.delete(name);
      else
        this.state.set(name, {
          ...s,
          id: read.id,
          outputs: (read.props as Record<string, unknown>) ?? s.outputs,
          inputs: (read.inputs as Record<string, unknown>) ?? s.inputs,
        });
    }
  }

  async destroy(): Promise<void> {
    const providerOf = await providerProcess(this.settings);
    await Promise.all(
      [...this.state].map(([, s]) => providerOf(s.type).delete!(s.id, { ...s.outputs, [PROVIDER_KEY]: "mock" })),
    );
    this.state.clear();
  }

  /** The outputs of the resources of one type (the engine's `stack export`, from this harness's state). */
  outputs(type: string): Record<string, unknown>[] {
    return [...this.state.values()].filter((s) => s.type === type).map((s) => s.outputs);
  }

  ids(type: string): string[] {
    return [...this.state.values()].filter((s) => s.type === type).map((s) => s.id);
  }
}
