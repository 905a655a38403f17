/**
 * What a resource declares once, in its folder (`resources/<name>/declaration.ts`), and every
 * table the package needs of it is derived from (resources/all.ts): the plugin's resource calls
 * and schema, the program's settings check, the recovery's takeover table, the dynamic providers'
 * permanent modules and the doc comments TypeScript users read (scripts/argDocs.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import type { Api } from "../api/endpoints";

export interface ResourceDeclaration<Module extends string = string> {
  /** The type name: `mgmt:index:<type>` through the plugin, `mgmt:<type>` as a dynamic resource. */
  type: string;
  /**
   * Its module under `pulumi-mgmt/internal/providers/`, the path the dynamic door's state requires
   * (dynamicDoor.ts): permanent, never renamed once released.
   */
  module: Module;
  description: string;
  /**
   * What `check` validates and the provider then receives; each input a user writes carries its
   * description (`.meta({ description })`), which the schema, the SDKs and the TypeScript doc
   * comments all show.
   */
  inputs: z.ZodObject;
  /** What the stack stores; `secret` in a field's meta marks what is kept secret. */
  outputs: z.ZodObject;
  /**
   * Inputs the front door or `check` fills in, never a user: the generated name, the resource's
   * own name for conflict messages, the object as `check` found it (before.ts).
   */
  internalInputs: readonly string[];
  /** The API areas its calls go to: the settings it cannot do without follow. */
  apis: readonly Api[];
  /** check, diff, create, read, update and delete (a Pulumi dynamic provider's methods): one implementation for both doors. */
  operations: pulumi.dynamic.ResourceProvider;
  /**
   * For a resource that takes over an object rather than creating it: the object's id and name
   * from the inputs a pending create recorded, so that recovery of a killed run imports it
   * (automation/recovery.ts). Absent: a pending create is recovered by its name (an index).
   */
  takeover?: (inputs: Record<string, string>) => { id: string; name: string };
  /**
   * Where TypeScript programs declare its inputs: exported interfaces, each by its module under
   * provider/ and its name, and inputs named differently there. The build writes each input's
   * description onto them as a doc comment in the compiled `.d.ts` (scripts/argDocs.ts).
   */
  typescript: { interfaces: readonly TypeScriptInterface[]; renamed?: Record<string, string> };
}

/** An exported interface: its module under provider/ (no extension) and its name. */
export type TypeScriptInterface = readonly [module: string, name: string];

/** A resource's declaration, its module name kept as a literal type (ProviderName). */
export function declareResource<const Module extends string>(
  declaration: ResourceDeclaration<Module>,
): ResourceDeclaration<Module> {
  return declaration;
}
