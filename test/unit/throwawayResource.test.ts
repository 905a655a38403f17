/**
 * Adding a resource is its declaration and a line in resources/all.ts, nothing else: a resource
 * only this test declares, appended to the list, is in the package schema (its inputs' and
 * outputs' descriptions included), served by the plugin's resource calls and by the dynamic door's
 * permanent module. The same for a function: appended to
 * functions/all.ts, it is in the schema and served by the plugin's Invoke.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  CheckRequest,
  CreateRequest,
  DeleteRequest,
  InvokeRequest,
  ReadRequest,
} from "@pulumi/pulumi/proto/provider_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { ProviderStack } from "../support/providerRun";

/** What the throwaway resource did, by call: its provider is the only implementation, whichever door. */
const mockCalls: string[] = [];

jest.mock("../../provider/resources/all", () => {
  const actual = jest.requireActual("../../provider/resources/all");
  const { z } = jest.requireActual("zod");
  const throwaway = {
    type: "Throwaway",
    module: "throwaway",
    description: "A resource only this test declares.",
    inputs: z.object({ label: z.string().min(1, "must not be empty").meta({ description: "Any label." }) }),
    outputs: z.object({
      label: z.string().meta({ description: "The label." }),
      made: z.number().meta({ description: "How many creates made it." }),
    }),
    internalInputs: [],
    apis: [],
    operations: {
      async check(_olds: unknown, news: { label?: string }) {
        mockCalls.push("check");
        return news.label
          ? { inputs: news }
          : { failures: [{ property: "label", reason: "label: must not be empty" }] };
      },
      async create(inputs: { label: string }) {
        mockCalls.push("create");
        return { id: `throwaway-${inputs.label}`, outs: { ...inputs, made: 1 } };
      },
      async read(id: string, props: object) {
        mockCalls.push("read");
        return { id, props };
      },
      async delete() {
        mockCalls.push("delete");
      },
    },
    takeover: (inputs: Record<string, string>) => ({ id: `throwaway-${inputs.label}`, name: inputs.label }),
    typescript: { interfaces: [] },
  };
  const RESOURCES = [...actual.RESOURCES, throwaway];
  return { RESOURCES, resourceOfType: (type: string) => RESOURCES.find((r) => r.type === type) };
});

jest.mock("../../provider/functions/all", () => {
  const actual = jest.requireActual("../../provider/functions/all");
  const { z } = jest.requireActual("zod");
  const args = z.object({ label: z.string().meta({ description: "Any label." }) });
  const echo = {
    name: "getThrowaway",
    description: "A function only this test declares.",
    args,
    result: z.object({ echoed: z.string().meta({ description: "The label, back." }) }),
    run: async (raw: unknown) => ({ echoed: args.parse(raw).label }),
  };
  return { ...actual, FUNCTIONS: [...actual.FUNCTIONS, echo] };
});

const urn = "urn:pulumi:dev::proj::mgmt:index:Throwaway::t";
const plain = (s: Struct | undefined) => s?.toJavaScript() ?? {};

beforeEach(() => mockCalls.splice(0));

test("the schema has the resource and the function, with every description", () => {
  const { packageSchema } = require("../../provider/plugin/schema") as typeof import("../../provider/plugin/schema");
  const schema = packageSchema();
  const resource = schema.resources["mgmt:index:Throwaway"];
  expect(resource.description).toBe("A resource only this test declares.");
  expect(resource.inputProperties.label.description).toBe("Any label.");
  expect(resource.requiredInputs).toEqual(["label"]);
  expect(resource.properties.made.description).toBe("How many creates made it.");
  const fn = schema.functions["mgmt:index:getThrowaway"];
  expect(fn.inputs!.properties.label.description).toBe("Any label.");
  expect(fn.outputs.properties.echoed.description).toBe("The label, back.");
});

test("the plugin serves the resource through its declared provider: Check refuses, Create, Read, Delete", async () => {
  const { resourceCalls } =
    require("../../provider/plugin/resourceCalls") as typeof import("../../provider/plugin/resourceCalls");
  const calls = resourceCalls();
  const check = (news: Record<string, string>) =>
    calls.check(new CheckRequest().setUrn(urn).setName("t").setNews(Struct.fromJavaScript(news)));
  expect((await check({ label: "" })).getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([
    ["label", "label: must not be empty"],
  ]);
  const checked = await check({ label: "one" });
  const created = await calls.create(new CreateRequest().setUrn(urn).setProperties(checked.getInputs()));
  expect([created.getId(), plain(created.getProperties())]).toEqual(["throwaway-one", { label: "one", made: 1 }]);
  const read = await calls.read(
    new ReadRequest().setUrn(urn).setId("throwaway-one").setProperties(created.getProperties()),
  );
  expect(read.getId()).toBe("throwaway-one");
  await calls.remove(new DeleteRequest().setUrn(urn).setId("throwaway-one").setProperties(created.getProperties()));
  expect(mockCalls).toEqual(["check", "check", "create", "read", "delete"]);
});

test("the plugin's Invoke serves the function", async () => {
  const { invokeCalls } = require("../../provider/plugin/invokes") as typeof import("../../provider/plugin/invokes");
  const { packageSchema } = require("../../provider/plugin/schema") as typeof import("../../provider/plugin/schema");
  const invoke = invokeCalls(() => packageSchema());
  const answer = await invoke(
    new InvokeRequest().setTok("mgmt:index:getThrowaway").setArgs(Struct.fromJavaScript({ label: "two" })),
  );
  expect(plain(answer.getReturn())).toEqual({ echoed: "two" });
});

test("the dynamic door serves the resource through the same provider, from its permanent module", async () => {
  const { providerFor } =
    require("../../provider/resources/dynamicDoor") as typeof import("../../provider/resources/dynamicDoor");
  const { resourceOfType } = require("../../provider/resources/all") as typeof import("../../provider/resources/all");
  const declaration = resourceOfType("Throwaway")!;
  class Throwaway extends pulumi.dynamic.Resource {}
  const stack = new ProviderStack({}, "dynamic");
  const program = () =>
    new Throwaway(providerFor(declaration as never), "t", { label: "three" }, {}, "mgmt", "Throwaway");
  expect(await stack.up(program)).toEqual({ create: 1 });
  expect(stack.state.get("t")).toMatchObject({ id: "throwaway-three" });
  await stack.destroy();
  expect(mockCalls).toEqual(["check", "create", "delete"]);
});
