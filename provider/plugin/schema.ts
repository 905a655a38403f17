/**
 * The Pulumi package schema of the `mgmt` plugin, generated from the zod schemas the providers'
 * `check` validates with (the declarations of resources/all.ts, functions.ts, component.ts) and the settings table of
 * config.ts: one source, so the schema cannot say what `check` would refuse.
 */
import { z } from "zod";
import { SETTINGS_KEYS } from "../config";
import { CONTROLS_DESCRIPTION, CONTROLS_NAME, ControlsInputs, ControlsOutputs } from "./component";
import { FUNCTIONS } from "../functions/all";
import {
  PACKAGE,
  TypeCollector,
  jsonSchemaOf,
  token,
  type EnumTypeSpec,
  type ObjectTypeSpec,
  type PropertySpec,
} from "./pulumiTypes";
import { RESOURCES } from "../resources/all";
import type { ResourceDeclaration } from "../resources/declare";

/** The plugin's version: the npm package's, which ships it (a unit test holds them equal). */
export const PLUGIN_VERSION = "0.1.0";

/**
 * Where the engine downloads the plugin archive (`pulumi-resource-mgmt-v<version>-<os>-<arch>.tar.gz`,
 * written by `npm run release`) when a program needs the plugin and it is not installed: the
 * generated SDKs register it with their resources. A release for another address passes
 * `--plugin-download-url` (scripts/release.ts), which regenerates the SDKs it packs.
 */
export const PLUGIN_DOWNLOAD_URL = `https://github.com/pulumi-mgmt/pulumi-mgmt/releases/download/v${PLUGIN_VERSION}`;

export interface ResourceSpec {
  description: string;
  isComponent?: boolean;
  properties: Record<string, PropertySpec>;
  required?: string[];
  inputProperties: Record<string, PropertySpec>;
  requiredInputs?: string[];
}
export interface FunctionSpec {
  description: string;
  /** Left out for a function without arguments, as Pulumi writes it. */
  inputs?: ObjectTypeSpec;
  outputs: ObjectTypeSpec;
}
export interface PackageSchema {
  name: string;
  version: string;
  description: string;
  pluginDownloadURL: string;
  config: { variables: Record<string, PropertySpec> };
  provider: { description: string; inputProperties: Record<string, PropertySpec> };
  resources: Record<string, ResourceSpec>;
  functions: Record<string, FunctionSpec>;
  types: Record<string, ObjectTypeSpec | EnumTypeSpec>;
  meta: { supportPack: boolean };
  language: typeof LANGUAGE;
}

/**
 * What Pulumi's code generators need to write sdk/<language> (scripts/gen-sdk.sh): package names
 * and, for Go, the import path of the folder the SDK is committed in. `respectSchemaVersion`
 * writes the plugin's version into each SDK's manifest instead of a placeholder for a publish
 * pipeline to fill in.
 */
const LANGUAGE = {
  go: {
    importBasePath: "github.com/pulumi-mgmt/pulumi-mgmt/sdk/go/mgmt",
    generateResourceContainerTypes: true,
    respectSchemaVersion: true,
  },
  nodejs: {
    packageName: "@pulumi-mgmt/mgmt",
    packageDescription: "The mgmt provider plugin's Node.js SDK (generated: scripts/gen-sdk.sh).",
    dependencies: { "@pulumi/pulumi": "^3.139.0" },
    respectSchemaVersion: true,
  },
  python: { packageName: "pulumi_mgmt", respectSchemaVersion: true, pyproject: { enabled: true } },
  csharp: { rootNamespace: "PulumiMgmt", packageReferences: { Pulumi: "3.*" }, respectSchemaVersion: true },
};

const capitalized = (name: string) => name[0].toUpperCase() + name.slice(1);

/** Input properties that are also secret outputs (a messaging token) are secret inputs too. */
function markSecretInputs(inputs: ObjectTypeSpec, outputs: ObjectTypeSpec): void {
  for (const [key, prop] of Object.entries(inputs.properties)) if (outputs.properties[key]?.secret) prop.secret = true;
}

function resourceSpec(
  types: TypeCollector,
  name: string,
  description: string,
  inputs: z.ZodObject,
  outputs: z.ZodObject,
  internalInputs: readonly string[] = [],
): ResourceSpec {
  const userInputs = z.object(
    Object.fromEntries(Object.entries(inputs.shape).filter(([key]) => !internalInputs.includes(key))),
  );
  const ins = types.objectType(`${name}Args`, jsonSchemaOf(userInputs, "input"), "input");
  const outs = types.objectType(name, jsonSchemaOf(outputs, "output"));
  markSecretInputs(ins, outs);
  const spec: ResourceSpec = { description, properties: outs.properties, inputProperties: ins.properties };
  if (outs.required) spec.required = outs.required;
  if (ins.required) spec.requiredInputs = ins.required;
  return spec;
}

function configVariables(): Record<string, PropertySpec> {
  const variables: Record<string, PropertySpec> = {};
  for (const [name, keys] of Object.entries(SETTINGS_KEYS)) {
    variables[name] = {
      type: "string",
      description: `The setting ${keys.config} (environment variable ${keys.env}); docs/configuration.md.`,
    };
    if ("secret" in keys) variables[name].secret = true;
  }
  return variables;
}

/** The whole schema, as `pulumi package get-schema` prints it. */
/**
 * One resource's part of the schema, alone: what the plugin's resource calls need of it (which
 * keys are inputs and outputs, which are secret), without the rest of the schema, which takes a
 * tenth of a second of CPU to generate (z.toJSONSchema of every resource and function) at every
 * start of the plugin, that is at every engine run.
 */
export function resourceSchema(r: ResourceDeclaration): ResourceSpec {
  return resourceSpec(new TypeCollector(), r.type, r.description, r.inputs, r.outputs, r.internalInputs);
}

export function packageSchema(pluginDownloadURL: string = PLUGIN_DOWNLOAD_URL): PackageSchema {
  const types = new TypeCollector();
  const resources: Record<string, ResourceSpec> = {};
  for (const r of RESOURCES)
    resources[token(r.type)] = resourceSpec(types, r.type, r.description, r.inputs, r.outputs, r.internalInputs);
  resources[token(CONTROLS_NAME)] = {
    ...resourceSpec(types, CONTROLS_NAME, CONTROLS_DESCRIPTION, ControlsInputs, ControlsOutputs),
    isComponent: true,
  };

  const functions: Record<string, FunctionSpec> = {};
  for (const f of FUNCTIONS) {
    const result = f.list ? z.object({ items: z.array(f.result) }) : f.result;
    const inputs = types.objectType(`${capitalized(f.name)}Args`, jsonSchemaOf(f.args, "input"), "input");
    const outputs = types.objectType(`${capitalized(f.name)}Result`, jsonSchemaOf(result, "input"));
    functions[token(f.name)] =
      Object.keys(inputs.properties).length > 0
        ? { description: f.description, inputs, outputs }
        : { description: f.description, outputs };
  }

  const variables = configVariables();
  return {
    name: PACKAGE,
    version: PLUGIN_VERSION,
    description:
      "Search indexes, messaging accounts, budgets, flow control keys and queues of the management API, as code.",
    pluginDownloadURL,
    config: { variables },
    provider: {
      description:
        "The mgmt provider: the management API's address and credentials (the same keys and environment variables as the stack's mgmt:* config).",
      inputProperties: variables,
    },
    resources,
    functions,
    types: types.types,
    // Each SDK gets a manifest of its own (sdk/go/go.mod, sdk/python/pyproject.toml), the layout
    // of `pulumi package gen-sdk`.
    meta: { supportPack: true },
    language: LANGUAGE,
  };
}
