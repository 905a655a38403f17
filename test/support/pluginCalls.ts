/**
 * The `mgmt` plugin's resource calls and invokes as a test drives them: the built plugin, over real
 * gRPC, configured against an in-process emulator as the engine would configure it, with every
 * response kept to look for a token or password in plain text. No Pulumi engine runs.
 */
import type { ChildProcess } from "node:child_process";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import type { ServiceError } from "@grpc/grpc-js";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import type { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import type { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import {
  CheckRequest,
  ConfigureRequest,
  CreateRequest,
  ErrorResourceInitFailed,
  DeleteRequest,
  DiffRequest,
  InvokeRequest,
  ReadRequest,
  UpdateRequest,
  type CheckResponse,
  type ConfigureResponse,
  type CreateResponse,
  type DiffResponse,
  type InvokeResponse,
  type ReadResponse,
  type UpdateResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import type { RunningEmulator } from "../../emulator";
import type { MgmtConfig } from "../../provider/automation";
import { SETTINGS_KEYS, type SettingName } from "../../provider/config";
import { SECRET_SIG, SIG_KEY, type Plain } from "../../provider/plugin/properties";
import { pluginClient, promised, startPlugin } from "./pluginProcess";

/** What the engine sends for a value not known until apply. */
export const ENGINE_UNKNOWN: string = unknownValue;
export const struct = (values: Record<string, Plain>) => Struct.fromJavaScript(values);
/** A value as the engine wraps a secret. */
export const secret = (value: Plain) => ({ [SIG_KEY]: SECRET_SIG, value });
export const urnOf = (type: string, name: string) => `urn:pulumi:dev::proj::mgmt:index:${type}::${name}`;

/**
 * One engine run's plugin: a plugin process configured as the engine configures it, by default
 * with the emulator's addresses and the first user's credentials (the password a secret argument,
 * as an explicit provider's arrives); with `settings`, as the stack's `mgmt:*` config arrives
 * (every setting a config variable), after a CheckConfig whose failures fail the run as the
 * engine's would. One process is one run (it remembers what the run did: takeovers, lists read
 * once), so `nextRun` starts another.
 */
export class PluginRun {
  client!: ResourceProviderClient;
  private child?: ChildProcess;
  /** Every response's properties as JSON, to look for a secret in plain text. */
  private readonly seen: string[] = [];

  /** `emu`: configured as its first user; or `settings`: the stack's `mgmt:*` config. */
  constructor(
    private readonly emu: RunningEmulator | undefined,
    private readonly settings?: MgmtConfig,
  ) {}

  async nextRun(): Promise<this> {
    this.close();
    const { child, port } = await startPlugin();
    this.child = child;
    this.client = pluginClient(port);
    const req = new ConfigureRequest();
    const variables = req.getVariablesMap();
    if (this.settings) {
      const config: Record<string, Plain> = {};
      for (const [name, value] of Object.entries(this.settings)) {
        const key = SETTINGS_KEYS[name as SettingName]?.config.replace(/^mgmt:/, "");
        if (key === undefined || value === undefined) continue;
        config[key] = String(value);
        variables.set(`mgmt:config:${key}`, String(value));
      }
      const checked = await promised<CheckResponse>((cb) =>
        this.client.checkConfig(
          new CheckRequest().setUrn("urn:pulumi:dev::proj::pulumi:providers:mgmt::default").setNews(struct(config)),
          cb,
        ),
      );
      const failures = checked.getFailuresList().map((f) => f.getReason());
      if (failures.length > 0) throw new Error(failures.join("; "));
    } else if (this.emu) {
      const user = this.emu.users[0];
      req.setArgs(struct({ password: secret(user.password) }));
      variables.set("mgmt:config:baseUrl", this.emu.baseUrl);
      variables.set("mgmt:config:username", user.username);
      variables.set("mgmt:config:messagingUrl", this.emu.messagingUrl);
      variables.set("mgmt:config:regionalMessagingUrl", this.emu.regionalMessagingUrl);
    }
    await promised<ConfigureResponse>((cb) => this.client.configure(req, cb));
    return this;
  }

  /** The run is over: its plugin process ends, as the engine ends it. */
  close(): void {
    this.client?.close();
    this.child?.kill();
  }

  /** Properties as plain JSON (secrets still wrapped), kept for `plainText`. */
  plain(s: Struct | undefined): Record<string, Plain> {
    const json = (s?.toJavaScript() ?? {}) as Record<string, Plain>;
    this.seen.push(JSON.stringify(json));
    return json;
  }

  /** Every response seen so far with the secret-wrapped values cut out: what must hold no token or password. */
  plainText(): string {
    const wrapped = new RegExp(`"${SIG_KEY}":"${SECRET_SIG}","value":("[^"]*"|\\{[^}]*\\}|\\[[^\\]]*\\])`, "g");
    return this.seen.join("\n").replace(wrapped, "");
  }

  /** `seed`: the engine's random seed for this resource (an auto-name is drawn from it). */
  check(
    type: string,
    name: string,
    news: Record<string, Plain>,
    olds: Record<string, Plain> = {},
    seed = new Uint8Array(32),
  ) {
    return promised<CheckResponse>((cb) =>
      this.client.check(
        new CheckRequest()
          .setUrn(urnOf(type, name))
          .setName(name)
          .setOlds(struct(olds))
          .setNews(struct(news))
          .setRandomseed(seed),
        cb,
      ),
    );
  }

  /** `oldInputs`: the inputs the engine recorded, which it sends beside the outputs (`olds`). */
  diff(
    type: string,
    name: string,
    id: string,
    olds: Struct | undefined,
    news: Record<string, Plain>,
    oldInputs?: Struct,
  ) {
    return promised<DiffResponse>((cb) =>
      this.client.diff(
        new DiffRequest()
          .setUrn(urnOf(type, name))
          .setId(id)
          .setOlds(olds)
          .setOldInputs(oldInputs)
          .setNews(struct(news)),
        cb,
      ),
    );
  }

  create(type: string, name: string, properties: Struct | undefined, preview = false) {
    return promised<CreateResponse>((cb) =>
      this.client.create(
        new CreateRequest().setUrn(urnOf(type, name)).setProperties(properties).setPreview(preview),
        cb,
      ),
    );
  }

  read(type: string, name: string, id: string, properties: Struct | undefined) {
    return promised<ReadResponse>((cb) =>
      this.client.read(new ReadRequest().setUrn(urnOf(type, name)).setId(id).setProperties(properties), cb),
    );
  }

  update(
    type: string,
    name: string,
    id: string,
    olds: Struct | undefined,
    news: Record<string, Plain>,
    preview = false,
  ) {
    return promised<UpdateResponse>((cb) =>
      this.client.update(
        new UpdateRequest().setUrn(urnOf(type, name)).setId(id).setOlds(olds).setNews(struct(news)).setPreview(preview),
        cb,
      ),
    );
  }

  delete(type: string, name: string, id: string, properties: Struct | undefined) {
    return promised<Empty>((cb) =>
      this.client.delete(new DeleteRequest().setUrn(urnOf(type, name)).setId(id).setProperties(properties), cb),
    );
  }

  invoke(fn: string, args: Record<string, Plain> = {}) {
    return promised<InvokeResponse>((cb) =>
      this.client.invoke(new InvokeRequest().setTok(`mgmt:index:${fn}`).setArgs(struct(args)), cb),
    );
  }
}

/** The error a call failed with (the test fails if it did not). */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

/** The detail of a "created, but failed to initialise" answer (initFailed.ts), as the engine decodes it. */
export function initFailed(err: unknown): ErrorResourceInitFailed {
  if (!(err as ServiceError).metadata) throw err;
  const [bin] = (err as ServiceError).metadata.get("grpc-status-details-bin");
  const [detail] = Status.deserializeBinary(bin as Buffer).getDetailsList();
  expect(detail.getTypeName()).toBe("pulumirpc.ErrorResourceInitFailed");
  return detail.unpack(ErrorResourceInitFailed.deserializeBinary, "pulumirpc.ErrorResourceInitFailed")!;
}
