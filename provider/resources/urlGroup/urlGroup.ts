/**
 * UrlGroup: the declaration a program uses (args, outputs, class). What the engine does with it
 * is in operations.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { secretOrUndefined, type ActionTargetArgs } from "../messagingFields";
import { providerFor } from "../dynamicDoor";
import { urlGroup } from "./declaration";

export interface UrlGroupEndpointArgs {
  url: pulumi.Input<string>;
  name?: pulumi.Input<string>;
}

/** Descriptions: the inputs' schema, written onto the compiled declaration (scripts/argDocs.ts). */
export interface UrlGroupSpec {
  name: string;
  endpoints: pulumi.Input<pulumi.Input<UrlGroupEndpointArgs>[]>;
}

export class UrlGroup extends pulumi.dynamic.Resource {
  declare readonly group: pulumi.Output<string>;
  declare readonly endpoints: pulumi.Output<{ url: string; name?: string }[]>;
  declare readonly created: pulumi.Output<boolean | undefined>;
  declare readonly addedEndpoints: pulumi.Output<string[] | undefined>;
  declare readonly otherEndpoints: pulumi.Output<{ url: string; name?: string }[] | undefined>;
  declare readonly managedBy: pulumi.Output<string>;

  constructor(name: string, args: ActionTargetArgs & UrlGroupSpec, opts?: pulumi.CustomResourceOptions) {
    super(
      providerFor(urlGroup, args.token),
      name,
      {
        created: undefined,
        addedEndpoints: undefined,
        otherEndpoints: undefined,
        managedBy: undefined,
        region: args.region,
        token: secretOrUndefined(args.token),
        group: args.name,
        endpoints: args.endpoints,
      },
      { ...opts, additionalSecretOutputs: ["token"] },
      "mgmt",
      "UrlGroup",
    );
  }
}
