/**
 * The hazard engineConnections.ts removes, reproduced with the SDK's own gRPC library and client
 * options (with a longer reconnect backoff, LONG_BACKOFF): a finished run's client calls its gone
 * engine (its connection to that address goes into reconnect backoff), the OS gives the same port
 * to the next run's engine, and that run's first call fails. In the Automation API that failure
 * makes a program silently declare nothing.
 */
import path from "node:path";
import { isolateEngineConnections } from "../../provider/automation/engineConnections";

const sdkDir = path.dirname(require.resolve("@pulumi/pulumi"));
const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdkDir] })) as typeof import("@grpc/grpc-js");
const settings = require(path.join(sdkDir, "runtime/settings")) as { grpcClientOptions: Record<string, unknown> };

const raw = (b: Buffer) => b;
const service = {
  ping: {
    path: "/probe.Engine/Ping",
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
};
const Client = grpc.makeGenericClientConstructor(service, "Engine");

function serve(port: number): Promise<[InstanceType<typeof grpc.Server>, number]> {
  const server = new grpc.Server();
  server.addService(service, {
    ping: (_call: unknown, done: (err: null, reply: Buffer) => void) => done(null, Buffer.from("pong")),
  });
  return new Promise((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve([server, bound]),
    ),
  );
}

function ping(client: InstanceType<typeof Client>): Promise<string> {
  return new Promise((resolve) =>
    client.ping(Buffer.from("ping"), (err: Error | null) => resolve(err ? err.message : "ok")),
  );
}

/**
 * The reconnect backoff a failed connection waits out before it tries again: a minute here, where
 * the SDK's is grpc-js's default (1 s, give or take a fifth), so that on a busy machine the next
 * run's call cannot come after it and pass by luck (seen once: "ok" on a bare CI machine).
 */
const LONG_BACKOFF = { "grpc.initial_reconnect_backoff_ms": 60_000, "grpc.max_reconnect_backoff_ms": 60_000 };

/** One run's engine on a port, a late call after it is gone, then the next run's engine on the same port. */
async function nextRunOnTheSamePort(options: () => Record<string, unknown>): Promise<string> {
  const [first, port] = await serve(0);
  const previous = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), options());
  expect(await ping(previous)).toBe("ok");
  first.forceShutdown();
  expect(await ping(previous)).toMatch(/UNAVAILABLE/);
  const [second] = await serve(port);
  const next = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), options());
  try {
    // The gone engine's connection waits out its backoff (without it, the next call's answer proves nothing).
    expect(await ping(previous)).toMatch(/UNAVAILABLE: No connection established/);
    return await ping(next);
  } finally {
    second.forceShutdown();
    previous.close();
    next.close();
  }
}

test("with shared connections, the next run's first call fails (the hazard is real)", async () => {
  expect(
    await nextRunOnTheSamePort(() => ({
      ...settings.grpcClientOptions,
      "grpc.use_local_subchannel_pool": 0,
      ...LONG_BACKOFF,
    })),
  ).toMatch(/UNAVAILABLE: No connection established/);
});

test("after isolateEngineConnections, the SDK's client options give each client its own connections", async () => {
  expect(isolateEngineConnections()).toBe(true);
  expect(await nextRunOnTheSamePort(() => ({ ...settings.grpcClientOptions, ...LONG_BACKOFF }))).toBe("ok");
});

test("mgmtStack applies it for inline programs", async () => {
  delete settings.grpcClientOptions["grpc.use_local_subchannel_pool"];
  const { mgmtStack } = await import("../../provider/automation");
  // Fails before any CLI work when no secrets provider is given; the isolation happens first.
  await mgmtStack({
    stackName: "isolation",
    program: async () => undefined,
    backendDir: "/nonexistent-pulumi-mgmt",
  }).catch(() => undefined);
  expect(settings.grpcClientOptions["grpc.use_local_subchannel_pool"]).toBe(1);
});
