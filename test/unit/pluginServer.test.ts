/**
 * The `mgmt` plugin process (provider/plugin/main.ts, compiled and bundled): it runs from one file, loads no root @pulumi/pulumi and no HTTP client,
 * prints its port, answers the protocol's configuration calls as documented, keeps secrets secret
 * and exits when its engine is gone.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { builtinModules } from "node:module";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { gzipSync } from "node:zlib";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import type { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import {
  CheckRequest,
  ConfigureRequest,
  DiffRequest,
  DiffResponse,
  GetSchemaRequest,
  CallRequest,
  type CallResponse,
  type CheckResponse,
  type ConfigureResponse,
  type GetSchemaResponse,
} from "@pulumi/pulumi/proto/provider_pb";
import { checkSettingKeys } from "../../provider/config";
import { SECRET_SIG, SIG_KEY, fromStruct } from "../../provider/plugin/properties";
import { LICENSES_FILE, pluginBundle } from "../../scripts/bundlePlugin";
import { PLUGIN_BUNDLE } from "../../provider/plugin/entry";
import { RESOURCES } from "../../provider/resources/all";
import {
  PLUGIN_MAIN as MAIN,
  pluginClient,
  promised,
  startPlugin as start,
  stopPlugins,
  track,
} from "../support/pluginProcess";

afterAll(stopPlugins);

test("the plugin runs from one file: its entry loads no other module but google-protobuf's, and no HTTP client before the first request", async () => {
  // Run as the engine runs it (start.js as the main module); a preload lists the modules it loaded.
  const dir = mkdtempSync(path.join(tmpdir(), "mgmt-plugin-probe-"));
  const probe = path.join(dir, "probe.js");
  writeFileSync(
    probe,
    "setTimeout(() => { console.log(JSON.stringify(Object.keys(require.cache))); process.exit(0); }, 500);",
  );
  const run = track(
    spawn(process.execPath, ["--require", probe, MAIN], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, PULUMI_MGMT_CACHE: dir },
    }),
  );
  let out = "";
  run.stdout!.on("data", (c: Buffer) => (out += c));
  await new Promise((resolve) => run.once("exit", resolve));
  rmSync(dir, { recursive: true, force: true });
  const loaded = (JSON.parse(out.trim().split("\n").pop() ?? "[]") as string[]).filter((f) => f !== probe);
  expect(loaded.slice(0, 2)).toEqual([MAIN, path.join(path.dirname(MAIN), "entry.js")]);
  // google-protobuf stays one copy with the SDK's (scripts/bundlePlugin.ts); nothing else is read:
  // no root @pulumi/pulumi, no undici (it comes with the first request, api/http.ts). The bundle
  // itself runs from V8's code cache (start.ts), not through require.
  expect(loaded.slice(2).filter((f) => !/node_modules[\\/]google-protobuf[\\/]/.test(f))).toEqual([]);
  expect(loaded.length).toBeLessThan(7);
});

test("the bundle on disk is what the compiled modules make: the dynamic resources' own providers and functions, of the SDK its protocol messages only, the bundled packages' licenses beside it", async () => {
  const dist = path.resolve(__dirname, "../../dist");
  const bundle = await pluginBundle(dist);
  // Not stale: the bin, the launchers and the benches run this file (through start.js).
  expect(bundle.text === readFileSync(path.join(path.dirname(MAIN), PLUGIN_BUNDLE), "utf8")).toBe(true);
  expect(readFileSync(path.join(path.dirname(MAIN), LICENSES_FILE), "utf8")).toBe(bundle.licenses);
  // About 260 kB compressed (2026-11-27), most of the package's 590 kB: a jump means a package slipped in.
  expect(gzipSync(bundle.text).length).toBeLessThan(290_000);
  const files = Object.keys(bundle.metafile.inputs).map((f) => f.replace(/\\/g, "/"));
  // One implementation per resource: the compiled modules the dynamic provider host loads.
  for (const { module } of RESOURCES) expect(files).toContain(`dist/provider/resources/${module}/operations.js`);
  // And the functions the TypeScript package exports, which serve the invokes.
  expect(files).toContain("dist/provider/functions/getSearchIndex.js");
  // Of the SDK, the protocol's generated messages only (the engine's too, for the wait notices):
  // the runtime is the program's own.
  const sdk = files.filter((f) => f.includes("node_modules/@pulumi/pulumi/"));
  expect(sdk.filter((f) => !f.includes("node_modules/@pulumi/pulumi/proto/"))).toEqual([]);
  expect(sdk).toEqual(
    expect.arrayContaining([
      "node_modules/@pulumi/pulumi/proto/provider_pb.js",
      "node_modules/@pulumi/pulumi/proto/engine_grpc_pb.js",
    ]),
  );
  const pkg = (f: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1];
  const bundled = [...new Set(files.map(pkg).filter((p) => p !== undefined))].sort();
  expect(bundled).toEqual(["@grpc/grpc-js", "@js-sdsl/ordered-map", "@pulumi/pulumi", "zod"]);
  for (const name of bundled) expect(bundle.licenses).toContain(`${name} `);
  // What stays a require() from node_modules (scripts/bundlePlugin.ts says why), Node's own aside.
  const [output] = Object.values(bundle.metafile.outputs);
  const external = [...new Set(output.imports.filter((i) => i.external).map((i) => i.path))]
    .filter((p) => !p.startsWith("node:") && !builtinModules.includes(p))
    .map((p) => pkg(`node_modules/${p}`))
    .sort();
  expect([...new Set(external)]).toEqual(["@grpc/proto-loader", "@pulumi/pulumi", "google-protobuf", "undici"]);
  expect(output.imports.filter((i) => i.external && i.path.startsWith("@pulumi/pulumi")).map((i) => i.path)).toEqual(
    expect.not.arrayContaining([expect.stringMatching(/^@pulumi\/pulumi\/proto\//)]),
  );
});

test("the first request loads undici's pool, retry interceptor and request, not its whole package", async () => {
  // The request layer every provider process sends through (api/http.ts), in a process of its own.
  const http = path.resolve(__dirname, "../../dist/provider/api/http.js");
  const probe = `
    const srv = require("node:http").createServer((_q, r) => r.end("ok")).listen(0, "127.0.0.1", async () => {
      const { send } = require(${JSON.stringify(http)});
      const origin = "http://127.0.0.1:" + srv.address().port;
      const a = await send({ origin, path: "/", method: "GET", headers: {}, retry: "idempotent", timeoutMs: 5000, totalTimeoutMs: 10000 }, { connectTimeoutMs: 5000, maxRetries: 0 });
      console.log(JSON.stringify({ status: a.status, text: a.text, loaded: Object.keys(require.cache) }));
      process.exit(0);
    });`;
  const child = track(spawn(process.execPath, ["-e", probe], { stdio: ["ignore", "pipe", "inherit"] }));
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  await new Promise((resolve) => child.once("exit", resolve));
  const { status, text, loaded } = JSON.parse(out.trim().split("\n").pop() ?? "{}") as {
    status: number;
    text: string;
    loaded: string[];
  };
  expect({ status, text }).toEqual({ status: 200, text: "ok" });
  const undici = loaded.filter((f) => /node_modules[\\/]undici[\\/]/.test(f));
  expect(undici.some((f) => /undici[\\/]index\.js$/.test(f))).toBe(false);
  expect(undici.length).toBeLessThan(40);
});

test("what the request layer takes from undici's modules is what its index exports", () => {
  const undici = require("undici");
  expect(require("undici/lib/dispatcher/pool")).toBe(undici.Pool);
  expect(require("undici/lib/interceptor/retry")).toBe(undici.interceptors.retry);
  expect(require("undici/lib/api/api-request")).toBe(undici.Dispatcher.prototype.request);
});

describe("the protocol", () => {
  let client: ResourceProviderClient;
  beforeAll(async () => {
    const { port } = await start();
    client = pluginClient(port);
  });
  afterAll(() => client.close());

  test("GetPluginInfo and GetSchema answer the package's version and schema", async () => {
    expect((await promised<PluginInfo>((cb) => client.getPluginInfo(new Empty(), cb))).getVersion()).toBe("0.1.0");
    const schema = JSON.parse(
      (await promised<GetSchemaResponse>((cb) => client.getSchema(new GetSchemaRequest(), cb))).getSchema(),
    );
    expect(schema.name).toBe("mgmt");
    expect(Object.keys(schema.resources)).toContain("mgmt:index:SearchIndex");
  });

  test("CheckConfig refuses a malformed setting in one line naming it, and passes good ones through", async () => {
    const bad = await promised<CheckResponse>((cb) =>
      client.checkConfig(new CheckRequest().setNews(Struct.fromJavaScript({ baseUrl: "ftp://x" })), cb),
    );
    expect(bad.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
      [
        "baseUrl",
        expect.stringMatching(/^mgmt:baseUrl \(or MGMT_BASE_URL\) must be an http:\/\/ or https:\/\/ address/),
      ],
    ]);
    const good = await promised<CheckResponse>((cb) =>
      client.checkConfig(
        new CheckRequest().setNews(
          Struct.fromJavaScript({ baseUrl: "http://127.0.0.1:1", password: { [SIG_KEY]: SECRET_SIG, value: "pw" } }),
        ),
        cb,
      ),
    );
    expect(good.getFailuresList()).toEqual([]);
    expect(good.getInputs()?.toJavaScript()).toEqual({
      baseUrl: "http://127.0.0.1:1",
      password: { [SIG_KEY]: SECRET_SIG, value: "pw" },
    });
  });

  test("CheckConfig refuses a misspelt key with the TypeScript door's line (config.ts checkSettingKeys), naming no value", async () => {
    const check = (urn: string, news: Record<string, unknown>) =>
      promised<CheckResponse>((cb) =>
        client.checkConfig(new CheckRequest().setUrn(urn).setNews(Struct.fromJavaScript(news as never)), cb),
      ).then((r) => r.getFailuresList().map((f) => [f.getProperty(), f.getReason()]));
    const provider = (project: string) => `urn:pulumi:dev::${project}::pulumi:providers:mgmt::default`;
    let door = "";
    try {
      checkSettingKeys(["mgmt:baseURL"]);
    } catch (err) {
      door = (err as Error).message;
    }
    expect(door).toMatch(/^mgmt:baseURL is not a pulumi-mgmt setting: did you mean `mgmt:baseUrl`\?/);
    expect(await check(provider("shop"), { baseURL: "http://127.0.0.1:1", username: "me" })).toEqual([["", door]]);
    expect(await check(provider("shop"), { pasword: { [SIG_KEY]: SECRET_SIG, value: "pw" } })).toEqual([
      ["", expect.stringMatching(/^mgmt:pasword is not a pulumi-mgmt setting: did you mean `mgmt:password`\?/)],
    ]);
    // What the engine adds, and a project named mgmt (whose own config shares the namespace): no failure.
    expect(await check(provider("shop"), { baseUrl: "http://127.0.0.1:1", version: "0.1.0" })).toEqual([]);
    expect(await check(provider("mgmt"), { baseUrl: "http://127.0.0.1:1", colour: "blue" })).toEqual([]);
  });

  test("DiffConfig: a changed address or password changes the provider and replaces nothing", async () => {
    const olds = Struct.fromJavaScript({ baseUrl: "http://a", password: { [SIG_KEY]: SECRET_SIG, value: "one" } });
    const news = Struct.fromJavaScript({ baseUrl: "http://b", password: { [SIG_KEY]: SECRET_SIG, value: "two" } });
    const diff = await promised<DiffResponse>((cb) =>
      client.diffConfig(new DiffRequest().setOlds(olds).setNews(news), cb),
    );
    expect(diff.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_SOME);
    expect(diff.getDiffsList().sort()).toEqual(["baseUrl", "password"]);
    expect(diff.getReplacesList()).toEqual([]);
    const same = await promised<DiffResponse>((cb) =>
      client.diffConfig(new DiffRequest().setOlds(olds).setNews(olds), cb),
    );
    expect(same.getChanges()).toBe(DiffResponse.DiffChanges.DIFF_NONE);
  });

  test("Configure accepts the stack's variables and a secret argument, and says it accepts secrets", async () => {
    const req = new ConfigureRequest().setArgs(
      Struct.fromJavaScript({ password: { [SIG_KEY]: SECRET_SIG, value: "pw" } }),
    );
    req.getVariablesMap().set("mgmt:config:baseUrl", "http://127.0.0.1:1");
    const res = await promised<ConfigureResponse>((cb) => client.configure(req, cb));
    expect(res.getAcceptsecrets()).toBe(true);
    const bad = new ConfigureRequest();
    bad.getVariablesMap().set("mgmt:config:timeoutMs", "soon");
    await expect(promised<ConfigureResponse>((cb) => client.configure(bad, cb))).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringMatching(/^mgmt:timeoutMs \(or MGMT_TIMEOUT_MS\) must be a whole number/),
    });
  });

  test("a call not served yet answers UNIMPLEMENTED in one line saying where to look", async () => {
    await expect(promised<CallResponse>((cb) => client.call(new CallRequest(), cb))).rejects.toMatchObject({
      code: grpc.status.UNIMPLEMENTED,
      details: expect.stringContaining("docs/plugin.md"),
    });
  });
});

test.each([
  ["the address alone", (engine: string) => [engine]],
  // As the CLI starts it with `-v=9 --logflow` or `--tracing`: its flags first, the address last.
  ["the CLI's flags before it", (engine: string) => ["--logtostderr", "-v=9", "--tracing", "127.0.0.1:9", engine]],
])("the plugin exits once its engine (the address it was given) is gone: %s", async (_label, args) => {
  const engine: Server = createServer();
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  const address = engine.address();
  if (address === null || typeof address === "string") throw new Error("no engine port");
  const { child } = await start(args(`127.0.0.1:${address.port}`));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(child.exitCode).toBeNull(); // alive while its engine lives
  engine.close();
  const late = new Promise<string>((resolve) =>
    setTimeout(() => resolve("still running 3 s after its engine closed"), 3000).unref(),
  );
  expect(await Promise.race([exited, late])).toBe(1);
});

test("a request's secrets reach the settings as plain values, and their keys are named", () => {
  const { values, secretKeys } = fromStruct(
    Struct.fromJavaScript({
      baseUrl: "http://a",
      password: { [SIG_KEY]: SECRET_SIG, value: "pw" },
      nested: [{ [SIG_KEY]: SECRET_SIG, value: 1 }],
    }),
  );
  expect(values).toEqual({ baseUrl: "http://a", password: "pw", nested: [1] });
  expect([...secretKeys].sort()).toEqual(["nested", "password"]);
});
