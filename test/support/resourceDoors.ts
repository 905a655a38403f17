/**
 * The two front doors a program's resources come through, for the scenarios that guard the
 * package's promises (test/e2e/promises.test.ts, rotation.test.ts): the dynamic resources (the
 * TypeScript API) and the `mgmt` plugin (what YAML, Go, Python and .NET programs reach). Both are
 * driven by the same inline Node.js program; through the plugin a resource is a
 * `pulumi.CustomResource` of type `mgmt:index:<Kind>`, exactly what the generated SDKs register,
 * and the plugin is installed into a Pulumi home of the test's own with `pulumi-resource-mgmt
 * install`'s code.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import {
  DatabaseBudget,
  FlowControlKey,
  MessagingAccount,
  MessagingBudget,
  MessagingQueue,
  MessagingSchedule,
  SearchIndex,
} from "../../provider";
import { installPlugin, pluginCacheDir } from "../../provider/plugin/install";
import { token } from "../../provider/plugin/pulumiTypes";
import { resourceOfType } from "../../provider/resources/all";
import { PLUGIN_MAIN } from "./pluginProcess";

const DYNAMIC = {
  SearchIndex,
  MessagingAccount,
  MessagingBudget,
  DatabaseBudget,
  FlowControlKey,
  MessagingQueue,
  MessagingSchedule,
};
export type Kind = keyof typeof DYNAMIC;

export interface ResourceDoor {
  name: "dynamic" | "plugin";
  /** Declares one resource in the running program. */
  declare(
    kind: Kind,
    name: string,
    args: Record<string, unknown>,
    opts?: pulumi.CustomResourceOptions,
  ): pulumi.CustomResource;
  /** The resource's type in state. */
  type(kind: Kind): string;
  /** What a stack needs in its environment for this door. */
  envVars: Record<string, string>;
}

export const dynamicDoor: ResourceDoor = {
  name: "dynamic",
  declare: (kind, name, args, opts) => {
    const Resource = DYNAMIC[kind] as new (
      n: string,
      a: unknown,
      o?: pulumi.CustomResourceOptions,
    ) => pulumi.CustomResource;
    return new Resource(name, args, opts);
  },
  type: (kind) => `pulumi-nodejs:dynamic/mgmt:${kind}`,
  envVars: {},
};

/**
 * A resource of the plugin, as the generated SDKs declare one: every output of the schema an
 * output property of the resource (the SDKs pass each as an undefined input; their classes add
 * the types).
 */
class PluginResource extends pulumi.CustomResource {
  constructor(kind: Kind, name: string, args: Record<string, unknown>, opts?: pulumi.CustomResourceOptions) {
    const outputs = Object.keys(resourceOfType(kind)!.outputs.shape);
    super(token(kind), name, { ...Object.fromEntries(outputs.map((k) => [k, undefined])), ...args }, opts);
  }
}

/** An output of a resource either door declared (a dynamic resource's getter, or the plugin's output property). */
export function outputOf<T>(resource: pulumi.CustomResource, key: string): pulumi.Output<T> {
  return (resource as unknown as Record<string, pulumi.Output<T>>)[key];
}

/** A door, or something of one door's (its account, its resources). */
type OfDoor = ResourceDoor | { door: ResourceDoor };
const doorOf = (x: OfDoor): ResourceDoor => ("door" in x ? x.door : x);

/**
 * For a stack that declares both doors' resources: what each door (or each door's item) gives,
 * labelled with the door's name, so that a failed check says which door it is about.
 */
export function byDoor<D extends OfDoor, T>(items: D[], f: (item: D) => T): [string, T][] {
  return items.map((x) => [doorOf(x).name, f(x)]);
}

/** byDoor, for checks that read state or the service. */
export function byDoorAsync<D extends OfDoor, T>(items: D[], f: (item: D) => Promise<T>): Promise<[string, T][]> {
  return Promise.all(items.map(async (x): Promise<[string, T]> => [doorOf(x).name, await f(x)]));
}

/**
 * In a stack with both doors' messaging objects, the plan of each door's account of alice's (her
 * eu-central-1 accounts): each door's objects are then in an account of their own.
 */
export const DOOR_PLAN = { dynamic: "free", plugin: "paid" } as const;

/** The environment a stack with resources of these doors needs. */
export function doorsEnv(doors: ResourceDoor[]): Record<string, string> {
  return Object.assign({}, ...doors.map((d) => d.envVars));
}

/** The plugin, installed into a Pulumi home of its own (the engine finds it in the plugin folder). */
export function pluginDoor(): ResourceDoor {
  // Made when a test file is loaded, used by all its tests. In the run's folder for stacks
  // (globalSetup.ts), which goes with the run: Jest ends its workers without an 'exit' event.
  const home = mkdtempSync(path.join(process.env.PULUMI_MGMT_TEST_STATES ?? tmpdir(), "mgmt-plugin-home-"));
  process.once("exit", () => rmSync(home, { recursive: true, force: true }));
  installPlugin(pluginCacheDir({ PULUMI_HOME: home }), PLUGIN_MAIN);
  return {
    name: "plugin",
    declare: (kind, name, args, opts) => new PluginResource(kind, name, args, opts),
    type: (kind) => token(kind),
    envVars: { PULUMI_HOME: home },
  };
}
