/**
 * The plugin's Construct over gRPC, against a stand-in engine and resource monitor that record
 * what the plugin registers: the component, then the plugin's own FlowControlKey and
 * MessagingQueue as its children (never the dynamic provider's resource), named as the
 * TypeScript component names them, the token secret in each, and the component's outputs read
 * from the children. Bad plain input is refused in one line naming the field, before anything is
 * registered. (test/e2e/pluginConstruct.test.ts runs it through the real engine.)
 */
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct, type JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import { EngineService } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { GetRootResourceResponse } from "@pulumi/pulumi/proto/engine_pb";
import { Alias } from "@pulumi/pulumi/proto/alias_pb";
import { ConstructRequest, type ConstructResponse } from "@pulumi/pulumi/proto/provider_pb";
import { ResourceMonitorService } from "@pulumi/pulumi/proto/resource_grpc_pb";
import {
  RegisterResourceResponse,
  SupportsFeatureResponse,
  type RegisterResourceRequest,
  type SupportsFeatureRequest,
} from "@pulumi/pulumi/proto/resource_pb";
import { SECRET_SIG, SIG_KEY } from "../../provider/plugin/properties";
import { pluginClient, promised, startPlugin, stopPlugins } from "../support/pluginProcess";

const STACK = "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev";

interface Registered {
  type: string;
  name: string;
  parent: string;
  version: string;
  object: Record<string, unknown>;
  options: {
    aliasUrns: string[];
    retainOnDelete?: boolean;
    customTimeouts?: object;
    ignoreChanges: string[];
    replaceOnChanges: string[];
    deletedWith: string;
    protect?: boolean;
  };
}

/** The engine and monitor, on one port: registrations echo their inputs, a key reporting a wait list of 7. */
async function standInEngine(registered: Registered[]): Promise<{ address: string; server: grpc.Server }> {
  const server = new grpc.Server();
  const monitor: grpc.UntypedServiceImplementation = {
    supportsFeature: (
      call: grpc.ServerUnaryCall<SupportsFeatureRequest, SupportsFeatureResponse>,
      cb: grpc.sendUnaryData<SupportsFeatureResponse>,
    ) =>
      cb(
        null,
        new SupportsFeatureResponse().setHassupport(
          ["secrets", "resourceReferences", "deletedWith"].includes(call.request.getId()),
        ),
      ),
    registerResource: (
      call: grpc.ServerUnaryCall<RegisterResourceRequest, RegisterResourceResponse>,
      cb: grpc.sendUnaryData<RegisterResourceResponse>,
    ) => {
      const req = call.request;
      const object = req.getObject()?.toJavaScript() ?? {};
      registered.push({
        type: req.getType(),
        name: req.getName(),
        parent: req.getParent(),
        version: req.getVersion(),
        object,
        options: {
          aliasUrns: req.getAliasurnsList(),
          retainOnDelete: req.getRetainondelete(),
          customTimeouts: req.getCustomtimeouts()?.toObject(),
          ignoreChanges: req.getIgnorechangesList(),
          replaceOnChanges: req.getReplaceonchangesList(),
          deletedWith: req.getDeletedwith(),
          protect: req.getProtect(),
        },
      });
      const urn = `urn:pulumi:dev::proj::${req.getType()}::${req.getName()}`;
      const res = new RegisterResourceResponse().setUrn(urn);
      if (req.getCustom()) {
        const outputs = req.getType().endsWith("FlowControlKey")
          ? { ...object, waitListSize: 7 }
          : { ...object, lag: 0 };
        res.setId(req.getName()).setObject(Struct.fromJavaScript(outputs));
      }
      cb(null, res);
    },
    registerResourceOutputs: (_call: unknown, cb: grpc.sendUnaryData<Empty>) => cb(null, new Empty()),
  };
  const engine: grpc.UntypedServiceImplementation = {
    log: (_call: unknown, cb: grpc.sendUnaryData<Empty>) => cb(null, new Empty()),
    getRootResource: (_call: unknown, cb: grpc.sendUnaryData<GetRootResourceResponse>) =>
      cb(null, new GetRootResourceResponse().setUrn(STACK)),
  };
  server.addService(ResourceMonitorService, monitor);
  server.addService(EngineService, engine);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { address: `127.0.0.1:${port}`, server };
}

const secret = (value: string) => ({ [SIG_KEY]: SECRET_SIG, value });

function constructRequest(address: string, inputs: { [key: string]: JavaScriptValue }): ConstructRequest {
  return new ConstructRequest()
    .setProject("proj")
    .setStack("dev")
    .setMonitorendpoint(address)
    .setDryrun(false)
    .setParallel(4)
    .setType("mgmt:index:MessagingControls")
    .setName("ctl")
    .setParent(STACK)
    .setInputs(Struct.fromJavaScript(inputs));
}

let registered: Registered[];
let engine: { address: string; server: grpc.Server };
let client: ReturnType<typeof pluginClient>;

beforeAll(async () => {
  registered = [];
  engine = await standInEngine(registered);
  const { port } = await startPlugin([engine.address]);
  client = pluginClient(port);
});
afterAll(() => {
  client.close();
  stopPlugins();
  engine.server.forceShutdown();
});

test("Construct registers the component and the plugin's own resources as its children, the token secret", async () => {
  registered.length = 0;
  const res = await promised<ConstructResponse>((cb) =>
    client.construct(
      constructRequest(engine.address, {
        region: "eu-central-1",
        token: secret("tok-123"),
        flowControlKeys: [{ key: "k1", paused: true }],
        queues: [{ name: "q1", parallelism: 2 }],
      }),
      cb,
    ),
  );
  expect(registered.map((r) => [r.type, r.name, r.parent])).toEqual([
    ["mgmt:index:MessagingControls", "ctl", STACK],
    ["mgmt:index:FlowControlKey", "ctl-key-k1", "urn:pulumi:dev::proj::mgmt:index:MessagingControls::ctl"],
    ["mgmt:index:MessagingQueue", "ctl-queue-q1", "urn:pulumi:dev::proj::mgmt:index:MessagingControls::ctl"],
  ]);
  const [, key, queue] = registered;
  expect(key.version).toBe("0.1.0");
  expect(key.object).toMatchObject({ region: "eu-central-1", key: "k1", paused: true, token: secret("tok-123") });
  expect(queue.object).toMatchObject({ queue: "q1", parallelism: 2, token: secret("tok-123") });
  expect(res.getUrn()).toBe("urn:pulumi:dev::proj::mgmt:index:MessagingControls::ctl");
  expect(res.getState()?.toJavaScript()).toMatchObject({
    waitListSizes: { k1: 7 },
    keyStates: { k1: { paused: true, waitListSize: 7 } },
    queueStates: { q1: { parallelism: 2, lag: 0 } },
  });
});

test("the component's options reach its registration, and its children keep their identity under its alias", async () => {
  registered.length = 0;
  const other = "urn:pulumi:dev::proj::mgmt:index:MessagingQueue::other";
  const req = constructRequest(engine.address, {
    region: "eu-central-1",
    token: secret("tok-123"),
    flowControlKeys: [{ key: "k1", paused: true }],
  })
    .setAliasesList([new Alias().setSpec(new Alias.Spec().setName("old-ctl"))])
    .setRetainondelete(true)
    .setCustomtimeouts(new ConstructRequest.CustomTimeouts().setCreate("5m"))
    .setIgnorechangesList(["queues"])
    .setReplaceonchangesList(["region"])
    .setDeletedwith(other)
    .setProtect(true);
  await promised<ConstructResponse>((cb) => client.construct(req, cb));
  const [component, key] = registered;
  expect(component.options).toMatchObject({
    aliasUrns: ["urn:pulumi:dev::proj::mgmt:index:MessagingControls::old-ctl"],
    retainOnDelete: true,
    customTimeouts: { create: "5m" },
    ignoreChanges: ["queues"],
    replaceOnChanges: ["region"],
    deletedWith: other,
    protect: true,
  });
  // A rename of the component in the program (with its alias) keeps every child what it was.
  expect(key.options.aliasUrns).toContain(
    "urn:pulumi:dev::proj::mgmt:index:MessagingControls$mgmt:index:FlowControlKey::old-ctl-key-k1",
  );
  expect(key.options.protect).toBe(true);
});

test("bad plain input is refused in one line naming the field, before anything is registered", async () => {
  registered.length = 0;
  const err = await promised<ConstructResponse>((cb) =>
    client.construct(
      constructRequest(engine.address, {
        flowControlKeys: [{ key: "k1" }, { key: "k1" }],
        queues: [{ name: "q1", parallelism: 0 }],
      }),
      cb,
    ),
  ).catch((e: grpc.ServiceError) => e);
  expect(err).toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
  const { details } = err as grpc.ServiceError;
  expect(details).toMatch(
    /^MessagingControls "ctl": .*flowControlKeys: "k1" is listed twice.*queues\[0\]\.parallelism: /,
  );
  expect(details).not.toContain("\n");
  expect(registered).toEqual([]);
});

test("Construct of a type the plugin does not serve names the one it serves", async () => {
  const err = await promised<ConstructResponse>((cb) =>
    client.construct(constructRequest(engine.address, {}).setType("mgmt:index:Other"), cb),
  ).catch((e: grpc.ServiceError) => e);
  expect((err as grpc.ServiceError).details).toBe(
    'mgmt plugin: no component "mgmt:index:Other"; the one served is mgmt:index:MessagingControls',
  );
});
