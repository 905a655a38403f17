/**
 * The `mgmt` resource provider plugin's gRPC server: Pulumi's ResourceProvider protocol served with
 * @grpc/grpc-js and the generated messages under @pulumi/pulumi/proto, not Pulumi's stock Node
 * provider server, which loads the whole SDK, drops what Configure sends and answers CheckConfig
 * and DiffConfig with UNIMPLEMENTED. Nothing here loads the root `@pulumi/pulumi`.
 *
 * Served so far: GetPluginInfo, GetSchema, CheckConfig, DiffConfig, Configure, Cancel, the
 * resources' Check, Diff, Create, Read, Update, Delete (resourceCalls.ts), the functions'
 * Invoke (invokes.ts) and MessagingControls' Construct (construct.ts). Every other call
 * answers UNIMPLEMENTED naming what works (docs/plugin.md).
 */
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { ResourceProviderService, type IResourceProviderServer } from "@pulumi/pulumi/proto/provider_grpc_pb";
import {
  CheckFailure,
  CheckResponse,
  ConfigureResponse,
  DiffResponse,
  GetSchemaResponse,
  type CheckRequest,
  type ConfigureRequest,
  type DiffRequest,
} from "@pulumi/pulumi/proto/provider_pb";
import { stopSending } from "../api/http";
import { ConfigError, SETTINGS_KEYS, checkSettingKeys, resolveSettings, type SettingName } from "../config";
import { useConfig } from "../runtime";
import { UserError } from "../userError";
import { forResource } from "../waitNotice";
import { constructCall } from "./construct";
import { fromStruct, type Plain } from "./properties";
import { InitFailed } from "./initFailed";
import { invokeCalls } from "./invokes";
import { PACKAGE } from "./pulumiTypes";
import { resourceCalls } from "./resourceCalls";
import { PLUGIN_VERSION, packageSchema, type PackageSchema } from "./schema";

/** A provider input or config variable key ("baseUrl", "mgmt:baseUrl", "mgmt:config:baseUrl") as its setting's name. */
function settingName(key: string): SettingName | undefined {
  const name = key.replace(new RegExp(`^${PACKAGE}:(config:)?`), "");
  return name in SETTINGS_KEYS ? (name as SettingName) : undefined;
}

/** Settings by config key ("mgmt:baseUrl"), as config.ts resolves them, from provider inputs. */
function configOf(values: Record<string, Plain>): Record<string, string> {
  const config: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    const name = settingName(key);
    if (name !== undefined && value !== null && value !== "")
      config[SETTINGS_KEYS[name].config] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return config;
}

/** A failure the user can act on, as gRPC status: its one-line message, never a stack. */
function failed(err: unknown): Partial<grpc.StatusObject> {
  if (err instanceof InitFailed) return err.status();
  if (err instanceof UserError) return { code: grpc.status.INVALID_ARGUMENT, details: err.message };
  return { code: grpc.status.INTERNAL, details: `mgmt plugin: ${err instanceof Error ? err.message : String(err)}` };
}

/**
 * The resource a call is for, when its request names one (Check, Diff, Create, Read, Update,
 * Delete; the provider's own for CheckConfig, DiffConfig and Configure): its requests' retries
 * are reported on that resource's line (waitNotice.ts). Invokes and Construct name none.
 */
function urnOf(req: unknown): string | undefined {
  const get = (req as { getUrn?: () => string } | null)?.getUrn;
  return typeof get === "function" ? get.call(req) || undefined : undefined;
}

/** Wraps a handler: a thrown error becomes its gRPC status. */
function unary<Req, Res>(handle: (req: Req) => Res | Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => forResource(urnOf(call.request), () => handle(call.request)))
      .then(
        (res) => callback(null, res),
        (err: unknown) => callback(failed(err)),
      );
  };
}

const notYet =
  (what: string): grpc.handleUnaryCall<unknown, never> =>
  (_call, callback) =>
    callback({
      code: grpc.status.UNIMPLEMENTED,
      details: `mgmt plugin: ${what} is not served yet; use the TypeScript package (dynamic resources) meanwhile, see docs/plugin.md`,
    });

/** What the engine itself may put among a provider's inputs (older engines: not under "__internal"). */
const ENGINE_INPUTS = new Set(["__internal", "version", "pluginDownloadURL", "pluginChecksums"]);

/**
 * The check of the TypeScript door (resources/programClient.ts), the same lines: an unknown key (a
 * typo: `mgmt:baseURL`) with the key it meant, then each value. The engine sends the stack's
 * `mgmt:*` config to the default provider as its inputs, by their names without the namespace;
 * a project itself named `mgmt` owns that namespace, and its keys are not ours to judge.
 */
function checkConfig(req: CheckRequest): CheckResponse {
  const { values } = fromStruct(req.getNews());
  const config = configOf(values);
  const res = new CheckResponse().setInputs(req.getNews());
  try {
    if (req.getUrn().split("::")[1] !== PACKAGE)
      checkSettingKeys(
        Object.keys(values)
          .filter((key) => !ENGINE_INPUTS.has(key))
          .map((key) => `${PACKAGE}:${key}`),
      );
    resolveSettings((key) => config[key]);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // A known setting's failure names it (the engine shows its value); an unknown key's names none,
    // so that no value, a password set under a misspelt key included, is shown.
    const property = (err.setting && settingName(err.setting)) ?? "";
    res.setFailuresList([new CheckFailure().setProperty(property).setReason(err.message)]);
  }
  return res;
}

/** A changed address or credential reconfigures the provider; it never replaces it (and so never its resources). */
function diffConfig(req: DiffRequest): DiffResponse {
  const olds = configOf(fromStruct(req.getOlds()).values);
  const news = configOf(fromStruct(req.getNews()).values);
  const changed = [...new Set([...Object.keys(olds), ...Object.keys(news)])]
    .filter((key) => olds[key] !== news[key])
    .map((key) => key.replace(`${PACKAGE}:`, ""));
  return new DiffResponse()
    .setChanges(changed.length > 0 ? DiffResponse.DiffChanges.DIFF_SOME : DiffResponse.DiffChanges.DIFF_NONE)
    .setDiffsList(changed)
    .setReplacesList([]);
}

/**
 * The stack's `mgmt:*` config arrives as `variables` (by "mgmt:config:<key>"), an explicit
 * provider resource's as `args`, secrets wrapped: both are kept, `args` winning, and unwrapped.
 * Then the same settings path the dynamic provider uses (runtime.ts), environment variables after.
 */
function configure(req: ConfigureRequest): ConfigureResponse {
  const variables: Record<string, Plain> = {};
  req.getVariablesMap().forEach((value, key) => (variables[key] = value));
  const config = { ...configOf(variables), ...configOf(fromStruct(req.getArgs()).values) };
  resolveSettings((key) => config[key]); // a malformed value fails here, naming its key and variable
  useConfig(config);
  return (
    new ConfigureResponse()
      .setAcceptsecrets(true)
      .setSupportspreview(true)
      .setAcceptresources(false)
      // Construct's inputs then keep each nested value's own dependencies and secrecy (the engine
      // keeps output values for Construct and Call only): without them a list with one entry's field
      // taken from another resource arrived as a whole Output, and its entries, which name the
      // component's children, could not be read.
      .setAcceptoutputs(true)
  );
}

/** `engineAddress`: the engine's, the plugin's first argument; Construct registers with it. */
export function providerServer(engineAddress?: string): IResourceProviderServer {
  // The whole schema only when asked for (GetSchema, an invoke): most runs never need it.
  let spec: PackageSchema | undefined;
  const schema = () => (spec ??= packageSchema());
  const resources = resourceCalls();
  return {
    getPluginInfo: unary(() => new PluginInfo().setVersion(PLUGIN_VERSION)),
    getSchema: unary(() => new GetSchemaResponse().setSchema(JSON.stringify(schema()))),
    checkConfig: unary(checkConfig),
    diffConfig: unary(diffConfig),
    configure: unary(configure),
    // Ctrl-C or a stopped update: no retry or new request is sent (a request already sent keeps
    // its answer: the engine waits for the operations in flight).
    cancel: unary(() => {
      stopSending();
      return new Empty();
    }),
    attach: unary(() => new Empty()),
    handshake: notYet("Handshake"),
    parameterize: notYet("Parameterize"),
    invoke: unary(invokeCalls(schema)),
    call: notYet("Call"),
    check: unary(resources.check),
    diff: unary(resources.diff),
    create: unary(resources.create),
    read: unary(resources.read),
    list: (call) =>
      call.destroy(
        Object.assign(new UserError("mgmt plugin: List is not served"), { code: grpc.status.UNIMPLEMENTED }),
      ),
    update: unary(resources.update),
    delete: unary((req) => resources.remove(req).then(() => new Empty())),
    construct: unary(constructCall(engineAddress)),
    getMapping: notYet("GetMapping"),
    getMappings: notYet("GetMappings"),
  };
}

/** Serves on a free loopback port; resolves to the port, which the plugin prints for the engine. */
export function serve(engineAddress?: string): Promise<{ port: number; server: grpc.Server }> {
  const server = new grpc.Server({
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
    "grpc.max_send_message_length": 400 * 1024 * 1024,
  });
  server.addService(ResourceProviderService, providerServer(engineAddress));
  return new Promise((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve({ port, server }),
    );
  });
}
