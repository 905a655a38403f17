/**
 * The engine's calls to this package's providers, without the engine, through either front door:
 * a program declared under Pulumi's mocks gives each resource's inputs as the engine would receive
 * them, and the engine's calls are made in its order (check; create, or diff and update; read;
 * delete) over real HTTP to the emulator, either
 * - `dynamic`: to the same provider modules the dynamic provider process loads, or
 * - `plugin`: to the `mgmt` plugin (the built `pulumi-resource-mgmt`) over its gRPC protocol, each
 *   resource as the generated SDKs declare it (`mgmt:index:<Name>`, without the dynamic provider's
 *   `__provider` and the inputs the plugin fills in itself), secrets wrapped as the engine sends
 *   them, the provider configured by CheckConfig and Configure with the stack's `mgmt:*` config.
 *
 * Each operation gets what the engine gives it, a provider process of its own: the provider
 * modules are loaded afresh (Jest's isolated module registry) and configured, and the state kept
 * for one run (globalThis, provider/resources/takeovers.ts and identity.ts) starts empty; or a
 * new plugin process.
 *
 * For grids where the engine adds nothing (every operation under every fault, every bad input):
 * an engine run costs seconds of CPU before it does anything. Each promise about `up`, `refresh`
 * and `destroy` keeps at least one representative case through the real engine beside it.
 * A component's own checks run in the program here for both doors (the plugin runs the same
 * composition in Construct: test/unit/pluginConstruct.test.ts); its children go through the door.
 */
import { randomBytes } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import type { MgmtConfig } from "../../provider/automation";
import { SETTINGS_KEYS } from "../../provider/config";
import type { Plain } from "../../provider/plugin/properties";
import { RESOURCES } from "../../provider/resources/all";
import { PluginRun, struct } from "./pluginCalls";

const PROVIDER_KEY = "__provider";
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const DYNAMIC_PREFIX = "pulumi-nodejs:dynamic/mgmt:";

/** The front door a stack's resources come through. */
export type FrontDoor = "dynamic" | "plugin";

type Values = Record<string, unknown>;
/** Resource steps by operation, as the engine's summary counts them. */
export type Changes = Record<string, number>;
const count = (changes: Changes, op: string, n = 1): Changes => {
  if (n > 0) changes[op] = (changes[op] ?? 0) + n;
  return changes;
};

interface Declared {
  type: string;
  name: string;
  inputs: Values;
}

interface State {
  type: string;
  id: string;
  inputs: Values;
  /** As the door gave them: through the plugin, secrets still wrapped (as the engine keeps them). */
  outputs: Values;
}

/** A check failure, as the engine reports it. */
export class CheckFailed extends Error {}

/** One provider process of a run, whichever door: the engine's calls on one resource at a time. */
interface ProviderProcess {
  /** The checked inputs; failures throw CheckFailed. */
  check(r: Declared, old: State | undefined): Promise<Values>;
  create(r: Declared, inputs: Values): Promise<{ id: string; outputs: Values }>;
  /** A preview's create: the plugin's sends nothing; the dynamic provider is not asked (it does not preview). */
  preview(r: Declared, inputs: Values): Promise<void>;
  diff(old: State, name: string, news: Values): Promise<{ changes: boolean; replaces: string[] }>;
  update(old: State, name: string, news: Values): Promise<Values>;
  /** No id: the object is gone. */
  read(s: State, name: string): Promise<{ id?: string; outputs?: Values; inputs?: Values }>;
  delete(s: State, name: string): Promise<void>;
  close(): void;
}

const checkFailed = (name: string, failures: { property: string; reason: string }[]) =>
  new CheckFailed(failures.map((f) => `${name}: ${f.property}: ${f.reason}`).join("; "));

/** A new dynamic provider process: the provider modules loaded afresh and configured with `settings`. */
async function dynamicProcess(settings: MgmtConfig): Promise<ProviderProcess> {
  for (const sym of Object.getOwnPropertySymbols(globalThis)) {
    if (sym.description?.startsWith("pulumi-mgmt.")) delete (globalThis as Record<symbol, unknown>)[sym];
  }
  const config = configOf(settings);
  const modules = new Map<string, pulumi.dynamic.ResourceProvider>();
  // zod keeps nothing of a run: the one copy already loaded spares each process re-evaluating its
  // 94 modules (about 60 of the 80 ms of CPU a reload costs here).
  const zod = jest.requireActual<typeof import("zod")>("zod");
  jest.doMock("zod", () => zod);
  // Each declared resource's permanent module (what state refers to), as the dynamic provider's host loads it.
  jest.isolateModules(() => {
    const declared = require("../../provider/resources/all") as typeof import("../../provider/resources/all");
    const { permanentModule } =
      require("../../provider/resources/permanentModule") as typeof import("../../provider/resources/permanentModule");
    for (const r of declared.RESOURCES) modules.set(`${DYNAMIC_PREFIX}${r.type}`, permanentModule(r));
  });
  // Every module shares the one runtime module of this registry: configuring one configures all.
  await [...modules.values()][0].configure!({ config } as unknown as pulumi.dynamic.ConfigureRequest);
  const of = (type: string) => {
    const provider = modules.get(type);
    if (!provider) throw new Error(`no provider module for ${type}`);
    return provider;
  };
  const withProvider = (values: Values) => ({ ...values, [PROVIDER_KEY]: "mock" });
  return {
    async check(r, old) {
      const news = withProvider(r.inputs);
      const checked = await of(r.type).check!(old?.inputs ?? {}, news);
      if (checked.failures?.length) throw checkFailed(r.name, checked.failures);
      return checked.inputs ?? news;
    },
    async create(r, inputs) {
      const made = await of(r.type).create(inputs);
      return { id: made.id, outputs: made.outs ?? {} };
    },
    preview: async () => undefined,
    async diff(old, _name, news) {
      const d = await of(old.type).diff!(old.id, withProvider(old.outputs), news);
      return { changes: d.changes !== false, replaces: d.replaces ?? [] };
    },
    async update(old, _name, news) {
      return (await of(old.type).update!(old.id, withProvider(old.outputs), news)).outs ?? old.outputs;
    },
    async read(s) {
      const read = await of(s.type).read!(s.id, withProvider(s.outputs));
      return { id: read.id, outputs: read.props as Values | undefined, inputs: read.inputs as Values | undefined };
    },
    async delete(s) {
      await of(s.type).delete!(s.id, withProvider(s.outputs));
    },
    close: () => undefined,
  };
}

/** The inputs each type's plugin `check` fills in itself: an SDK never sends them. */
const INTERNAL_INPUTS = new Map(RESOURCES.map((r) => [r.type, new Set([PROVIDER_KEY, ...r.internalInputs])]));

/** A new plugin process, configured with `settings` as the engine configures it from the stack's config. */
async function pluginProcess(
  settings: MgmtConfig,
  seeds: Map<string, Uint8Array<ArrayBuffer>>,
): Promise<ProviderProcess> {
  const run = await new PluginRun(undefined, settings).nextRun();
  const kind = (type: string) => type.slice(DYNAMIC_PREFIX.length);
  const js = (values: Values) => struct(values as Record<string, Plain>);
  // A gRPC failure as the engine prints it: its message.
  const call = async <T>(f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      throw new Error((err as { details?: string }).details ?? String(err));
    }
  };
  return {
    async check(r, old) {
      const k = kind(r.type);
      const news = Object.fromEntries(Object.entries(r.inputs).filter(([key]) => !INTERNAL_INPUTS.get(k)?.has(key)));
      if (!seeds.has(r.name)) seeds.set(r.name, new Uint8Array(randomBytes(32)));
      const res = await call(() =>
        run.check(
          k,
          r.name,
          news as Record<string, Plain>,
          (old?.inputs ?? {}) as Record<string, Plain>,
          seeds.get(r.name),
        ),
      );
      const failures = res.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() }));
      if (failures.length > 0) throw checkFailed(r.name, failures);
      return run.plain(res.getInputs());
    },
    async create(r, inputs) {
      const res = await call(() => run.create(kind(r.type), r.name, js(inputs)));
      return { id: res.getId(), outputs: run.plain(res.getProperties()) };
    },
    async preview(r, inputs) {
      await call(() => run.create(kind(r.type), r.name, js(inputs), true));
    },
    async diff(old, name, news) {
      const res = await call(() =>
        run.diff(kind(old.type), name, old.id, js(old.outputs), news as Record<string, Plain>, js(old.inputs)),
      );
      return { changes: res.getChanges() !== 1 /* DIFF_NONE */, replaces: res.getReplacesList() };
    },
    async update(old, name, news) {
      const res = await call(() =>
        run.update(kind(old.type), name, old.id, js(old.outputs), news as Record<string, Plain>),
      );
      return run.plain(res.getProperties());
    },
    async read(s, name) {
      const res = await call(() => run.read(kind(s.type), name, s.id, js(s.outputs)));
      if (!res.getId()) return {};
      return {
        id: res.getId(),
        outputs: run.plain(res.getProperties()),
        inputs: res.hasInputs() ? run.plain(res.getInputs()) : undefined,
      };
    },
    async delete(s, name) {
      await call(() => run.delete(kind(s.type), name, s.id, js(s.outputs)));
    },
    close: () => run.close(),
  };
}

/** Secrets as plain values (the dynamic provider receives them so; a test reads outputs so). */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object") {
    const o = value as Values;
    if (o[SECRET_SIG] !== undefined && "value" in o) return plain(o.value);
    return Object.fromEntries(
      Object.entries(o)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, plain(v)]),
    );
  }
  return value;
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
        if (args.type.startsWith(DYNAMIC_PREFIX) && INTERNAL_INPUTS.has(args.type.slice(DYNAMIC_PREFIX.length)))
          resources.push({ type: args.type, name: args.name, inputs: plain(args.inputs) as Values });
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

/**
 * One stack's resources and the engine's calls on them through a front door: `up(program)`
 * (check, then create, or diff and update; a resource no longer declared is deleted), `refresh()`
 * (read; no id drops it), `destroy()` (delete, last declared first). Resources are named by their
 * dynamic type here whichever the door (`ids`, `outputs`).
 */
export class ProviderStack {
  readonly state = new Map<string, State>();
  /** The engine's random seed per resource (the plugin draws an auto-name from it). */
  private readonly seeds = new Map<string, Uint8Array<ArrayBuffer>>();

  /** `settings`: the stack's `mgmt:*` config. */
  constructor(
    private settings: MgmtConfig,
    readonly door: FrontDoor = "dynamic",
  ) {}

  private process(): Promise<ProviderProcess> {
    return this.door === "plugin" ? pluginProcess(this.settings, this.seeds) : dynamicProcess(this.settings);
  }

  /** One run: a provider process for `f`, closed after it. */
  private async run<T>(f: (p: ProviderProcess) => Promise<T>): Promise<T> {
    const p = await this.process();
    try {
      return await f(p);
    } finally {
      p.close();
    }
  }

  /** The stack's `mgmt:*` config from now on (the next run's provider process is configured with it). */
  configure(settings: MgmtConfig): void {
    this.settings = settings;
  }

  /** Resource steps by operation (`create`, `update`, `same`, `delete`), as the engine counts them. */
  async up(program: () => unknown): Promise<Changes> {
    const { resources, error } = await declared(program, this.settings);
    if (error) throw error;
    return this.run(async (p) => {
      const changes: Changes = {};
      // Side by side, as the engine runs resources that do not depend on each other.
      const steps = await Promise.allSettled(resources.map((r) => this.step(p, r, changes)));
      for (const [i, step] of steps.entries())
        if (step.status === "fulfilled") this.state.set(resources[i].name, step.value);
      const failed = steps.find((x): x is PromiseRejectedResult => x.status === "rejected");
      if (failed) throw failed.reason;
      const kept = new Set(resources.map((r) => r.name));
      const gone = [...this.state].filter(([name]) => !kept.has(name));
      await Promise.all(gone.map(([name, s]) => p.delete(s, name)));
      for (const [name] of gone) this.state.delete(name);
      return count(changes, "delete", gone.length);
    });
  }

  /**
   * What an `up` would do, as the engine previews it: check every resource, diff the ones in
   * state, and (through the plugin, which previews) a previewed create of the new ones; nothing
   * is kept.
   */
  async preview(program: () => unknown): Promise<Changes> {
    const { resources, error } = await declared(program, this.settings);
    if (error) throw error;
    return this.run(async (p) => {
      const changes: Changes = {};
      await Promise.all(
        resources.map(async (r) => {
          const old = this.state.get(r.name);
          const inputs = await p.check(r, old);
          if (!old) {
            await p.preview(r, inputs);
            count(changes, "create");
            return;
          }
          const diff = await p.diff(old, r.name, inputs);
          count(changes, diff.replaces.length > 0 ? "replace" : diff.changes ? "update" : "same");
        }),
      );
      const kept = new Set(resources.map((r) => r.name));
      return count(changes, "delete", [...this.state.keys()].filter((name) => !kept.has(name)).length);
    });
  }

  /** One resource's step of an `up`: check, then create, or diff and (if it changed) update. */
  private async step(p: ProviderProcess, r: Declared, changes: Changes): Promise<State> {
    const old = this.state.get(r.name);
    const inputs = await p.check(r, old);
    if (!old) {
      const made = await p.create(r, inputs);
      count(changes, "create");
      return { type: r.type, id: made.id, inputs, outputs: made.outputs };
    }
    const diff = await p.diff(old, r.name, inputs);
    if (diff.replaces.length)
      throw new Error(`${r.name}: a replacement (${diff.replaces.join(", ")}) is not what this harness runs`);
    count(changes, diff.changes ? "update" : "same");
    if (!diff.changes) return { ...old, inputs };
    return { ...old, inputs, outputs: await p.update(old, r.name, inputs) };
  }

  async refresh(): Promise<void> {
    await this.run(async (p) => {
      const all = [...this.state];
      const reads = await Promise.all(all.map(([name, s]) => p.read(s, name)));
      for (const [i, [name, s]] of all.entries()) {
        const read = reads[i];
        if (!read.id) this.state.delete(name);
        else
          this.state.set(name, {
            ...s,
            id: read.id,
            outputs: read.outputs ?? s.outputs,
            inputs: read.inputs ?? s.inputs,
          });
      }
    });
  }

  async destroy(): Promise<Changes> {
    const n = this.state.size;
    await this.run((p) => Promise.all([...this.state].map(([name, s]) => p.delete(s, name))));
    this.state.clear();
    return count({}, "delete", n);
  }

  /** The outputs of the resources of one (dynamic) type, secrets plain (the engine's `stack export`). */
  outputs(type: string): Record<string, unknown>[] {
    return [...this.state.values()].filter((s) => s.type === type).map((s) => plain(s.outputs) as Values);
  }

  ids(type: string): string[] {
    return [...this.state.values()].filter((s) => s.type === type).map((s) => s.id);
  }
}
