/**
 * Construct of `mgmt:index:MessagingControls`: the TypeScript component's composition
 * (resources/controlsComposition.ts), its children being the plugin's own
 * `mgmt:index:FlowControlKey` and `mgmt:index:MessagingQueue`, registered as plain custom
 * resources so that the engine sends their Check, Diff, Create... back to this plugin. A YAML,
 * Go, Python or .NET program has no node_modules for the dynamic provider, so the dynamic
 * resources cannot be the children here.
 *
 * The root SDK and its runtime are required only when Construct is called (rootSdk.ts,
 * constructAdapter.ts): the plugin's load path stays without them.
 */
import type * as Pulumi from "@pulumi/pulumi";
import type { ConstructRequest, ConstructResponse } from "@pulumi/pulumi/proto/provider_pb";
import { z } from "zod";
import { composeControls, validateArgs, type KeyChild, type QueueChild } from "../resources/controlsComposition";
import { rootSdk } from "../rootSdk";
import { UserError } from "../userError";
import { CONTROLS_NAME } from "./component";
import { constructWithRuntime } from "./constructAdapter";
import { token } from "./pulumiTypes";
import { PLUGIN_VERSION } from "./schema";

/** The lists once validateArgs has passed: entries are objects whose key (or name) is a plain string. */
const Specs = z.object({
  flowControlKeys: z
    .array(z.object({ key: z.string() }).catchall(z.unknown()))
    .nullish()
    .transform((v) => v ?? undefined),
  queues: z
    .array(z.object({ name: z.string() }).catchall(z.unknown()))
    .nullish()
    .transform((v) => v ?? undefined),
});

type Target = { region?: unknown; token?: unknown };
type Spec = Record<string, unknown>;

/** The plugin's children: custom resources of this package, their outputs declared so the component can read them. */
function pluginChildren(pulumi: typeof Pulumi) {
  const options = (opts: Pulumi.CustomResourceOptions): Pulumi.CustomResourceOptions => ({
    ...opts,
    // The version the component was served at: the engine sends the children to this same plugin.
    version: PLUGIN_VERSION,
    additionalSecretOutputs: ["token"],
  });
  const secretToken = (value: unknown) => (value === undefined || value === null ? undefined : pulumi.secret(value));

  class PluginFlowControlKey extends pulumi.CustomResource implements KeyChild {
    declare readonly key: Pulumi.Output<string>;
    declare readonly paused: Pulumi.Output<boolean>;
    declare readonly waitListSize: Pulumi.Output<number>;
    declare readonly lastResetTrigger: Pulumi.Output<string | number | undefined>;
    declare readonly pin: KeyChild["pin"];

    constructor(name: string, args: Target & Spec & { key: string }, opts: Pulumi.CustomResourceOptions) {
      const { region, token: secret, key, paused, resetRateTrigger, pin } = args;
      super(
        token("FlowControlKey"),
        name,
        {
          waitListSize: undefined,
          lastResetTrigger: undefined,
          managedBy: undefined,
          region,
          token: secretToken(secret),
          key,
          paused,
          resetRateTrigger,
          pin,
        },
        options(opts),
      );
    }
  }

  class PluginMessagingQueue extends pulumi.CustomResource implements QueueChild {
    declare readonly queue: Pulumi.Output<string>;
    declare readonly parallelism: Pulumi.Output<number | undefined>;
    declare readonly paused: Pulumi.Output<boolean | undefined>;
    declare readonly lag: Pulumi.Output<number | undefined>;
    declare readonly lastResumeTrigger: Pulumi.Output<string | number | undefined>;

    constructor(name: string, args: Target & Spec & { name: string }, opts: Pulumi.CustomResourceOptions) {
      const { region, token: secret, name: queue, parallelism, paused, resumeTrigger } = args;
      super(
        token("MessagingQueue"),
        name,
        {
          lastResumeTrigger: undefined,
          lag: undefined,
          created: undefined,
          managedBy: undefined,
          region,
          token: secretToken(secret),
          queue,
          parallelism,
          paused,
          resumeTrigger,
        },
        options(opts),
      );
    }
  }

  return {
    key: (name: string, args: Target & Spec & { key: string }, opts: Pulumi.CustomResourceOptions) =>
      new PluginFlowControlKey(name, args, opts),
    queue: (name: string, args: Target & Spec & { name: string }, opts: Pulumi.CustomResourceOptions) =>
      new PluginMessagingQueue(name, args, opts),
  };
}

/** The component, its children the plugin's own resources, its outputs the composition's. */
function controlsClass(pulumi: typeof Pulumi) {
  const children = pluginChildren(pulumi);
  return class PluginMessagingControls extends pulumi.ComponentResource {
    readonly outputs: Record<string, Pulumi.Output<unknown>>;

    constructor(name: string, inputs: Record<string, unknown>, opts: Pulumi.ComponentResourceOptions) {
      super(token(CONTROLS_NAME), name, {}, opts);
      const target: Target = { region: inputs.region ?? undefined, token: inputs.token ?? undefined };
      const composed = composeControls(this, name, target, Specs.parse(inputs), children);
      this.outputs = {
        waitListSizes: composed.waitListSizes,
        keyStates: composed.keyStates,
        queueStates: composed.queueStates,
      };
      this.registerOutputs(this.outputs);
    }
  };
}

/** The plugin's Construct: the one component it serves, made with the engine that asked. */
export function constructCall(engineAddress: string | undefined) {
  return (req: ConstructRequest): Promise<ConstructResponse> => {
    if (req.getType() !== token(CONTROLS_NAME))
      throw new UserError(`mgmt plugin: no component "${req.getType()}"; the one served is ${token(CONTROLS_NAME)}`);
    if (!engineAddress)
      throw new UserError(
        "mgmt plugin: Construct needs the engine's address, the plugin's first argument: let the Pulumi engine start the plugin",
      );
    const pulumi = rootSdk();
    return constructWithRuntime(pulumi, engineAddress, req, (inputs, opts) => {
      // Plain values checked before anything is registered: bad input fails the preview, naming its field.
      validateArgs(req.getName(), inputs);
      const component = new (controlsClass(pulumi))(req.getName(), inputs, opts);
      return { urn: component.urn, state: component.outputs };
    });
  };
}
