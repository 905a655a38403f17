/**
 * The root `@pulumi/pulumi`, required on first use rather than imported. The getX functions' Output
 * forms and the program's settings (resources/programClient.ts) need it, and only in a Pulumi
 * program; the `mgmt` plugin imports the same files for the plain functions it serves as invokes
 * and must not load the root SDK (about 770 modules, 0.75 s of CPU; test/unit/pluginServer.test.ts
 * checks). Everything else takes the SDK's types with `import type`.
 */
import type * as Pulumi from "@pulumi/pulumi";

export function rootSdk(): typeof Pulumi {
  return require("@pulumi/pulumi") as typeof Pulumi;
}
