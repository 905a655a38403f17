/**
 * The three sentinels of Pulumi's property wire format: the value of an output not known until
 * apply, the key that marks a special value, and the signature that makes it a secret. They are
 * part of the engine's protocol (every language SDK declares them), not of one SDK's code.
 *
 * Declared here rather than imported from `@pulumi/pulumi/runtime/rpc`, their only home in the
 * Node.js SDK: that module loads about 110 modules of the SDK's runtime (semver, OpenTelemetry,
 * outputs, resources, settings) for three strings, on every start of the `mgmt` plugin, which is
 * every engine run of a YAML, Go, Python or .NET program and every fleet tenant's. This is the
 * one place that writes them; `sdkAdapterProblems()` (automation/sdkAdapter.ts) holds them equal
 * to the installed SDK's, in `npm test` and on every SDK of the version matrix.
 */
export const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
