/**
 * The plugin's package schema (provider/plugin/schema.ts) is generated from the zod schemas the
 * providers' `check` validates with: these tests fail when the two disagree, when a function or
 * a setting has no place in it, or when its secret outputs are not the ones the dynamic resources
 * keep secret.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { SETTINGS_KEYS } from "../../provider/config";
import { FUNCTIONS } from "../../provider/functions/all";
import { RESOURCES } from "../../provider/resources/all";
import { PLUGIN_VERSION, packageSchema } from "../../provider/plugin/schema";

const schema = packageSchema();
const ROOT = path.resolve(__dirname, "../..");

/** Keys of a zod object, and those a value may not leave out, by asking zod itself. */
const keysOf = (o: z.ZodObject) => Object.keys(o.shape).sort();
const requiredOf = (o: z.ZodObject) =>
  Object.entries(o.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([key]) => key)
    .sort();
const sorted = (xs: Iterable<string> | undefined) => [...(xs ?? [])].sort();

describe.each(RESOURCES.map((r) => [r.type, r] as const))("mgmt:index:%s", (name, resource) => {
  const spec = schema.resources[`mgmt:index:${name}`];

  test("its input properties and required inputs are the zod inputs' keys and non-optional keys, less the front door's own", () => {
    const internal = new Set(resource.internalInputs);
    for (const key of internal) expect(keysOf(resource.inputs)).toContain(key);
    expect(sorted(Object.keys(spec.inputProperties))).toEqual(keysOf(resource.inputs).filter((k) => !internal.has(k)));
    expect(sorted(spec.requiredInputs)).toEqual(requiredOf(resource.inputs).filter((k) => !internal.has(k)));
  });

  test("its output properties and required outputs are the output schema's", () => {
    expect(sorted(Object.keys(spec.properties))).toEqual(keysOf(resource.outputs));
    expect(sorted(spec.required)).toEqual(requiredOf(resource.outputs));
  });
});

test("MessagingControls is a component", () => {
  expect(schema.resources["mgmt:index:MessagingControls"].isComponent).toBe(true);
  expect(Object.keys(schema.resources).sort()).toEqual(
    [
      "DatabaseBudget",
      "FlowControlKey",
      "MessagingAccount",
      "MessagingBudget",
      "MessagingControls",
      "MessagingQueue",
      "MessagingSchedule",
      "MessagingSigningKeys",
      "SearchIndex",
      "UrlGroup",
    ].map((n) => `mgmt:index:${n}`),
  );
});

test("every getX function of provider/functions/ is an invoke, with its arguments", () => {
  const files = readdirSync(path.join(ROOT, "provider/functions"))
    .filter((f) => /^get\w+\.ts$/.test(f))
    .map((f) => f.replace(/\.ts$/, ""));
  // And an index's and an account's tokens, on their own (functions/all.ts says why).
  expect(sorted(Object.keys(schema.functions))).toEqual(
    sorted([...files, "getSearchIndexTokens", "getMessagingAccountTokens"].map((f) => `mgmt:index:${f}`)),
  );
  for (const f of FUNCTIONS) {
    const spec = schema.functions[`mgmt:index:${f.name}`];
    expect(sorted(Object.keys(spec.inputs?.properties ?? {}))).toEqual(keysOf(f.args));
    expect(sorted(spec.inputs?.required)).toEqual(requiredOf(f.args));
  }
});

test("the config is the settings table: every key, the secret ones secret", () => {
  const variables = schema.config.variables;
  expect(sorted(Object.keys(variables))).toEqual(sorted(Object.keys(SETTINGS_KEYS)));
  for (const [name, keys] of Object.entries(SETTINGS_KEYS))
    expect([name, variables[name].secret === true]).toEqual([name, "secret" in keys]);
  expect(schema.provider.inputProperties).toEqual(variables);
});

test("every type a property refers to is defined", () => {
  const refs = [...JSON.stringify(schema).matchAll(/"\$ref":"#\/types\/([^"]+)"/g)].map((m) => m[1]);
  expect(refs.length).toBeGreaterThan(0);
  for (const ref of refs) expect(Object.keys(schema.types)).toContain(ref);
});

test("the plugin's version is the package's", () => {
  expect(PLUGIN_VERSION).toBe(JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version);
});

describe("secret outputs", () => {
  /** What each dynamic resource asks the engine to keep secret, as it registers (additionalSecretOutputs). */
  const registered = new Map<string, string[]>();

  beforeAll(async () => {
    process.env.MGMT_BASE_URL = "http://127.0.0.1:1";
    process.env.MGMT_USERNAME = "u";
    process.env.MGMT_PASSWORD = "p";
    process.env.MGMT_MESSAGING_URL = "http://127.0.0.1:1";
    process.env.MGMT_REGIONAL_MESSAGING_URL = "http://127.0.0.1:1/{region}";
    process.env.MGMT_MESSAGING_TOKEN = "t";
    pulumi.runtime.setMocks(
      { newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: () => ({}) },
      "project",
      "stack",
      false,
    );
    const monitor = pulumi.runtime.getMonitor();
    if (!monitor) throw new Error("no mock monitor");
    const register = jest.spyOn(monitor, "registerResource");
    const m = await import("../../provider");
    const all = [
      new m.SearchIndex("s", { region: "eu-west-1", type: "free", name: "s" }),
      new m.MessagingAccount("a", { accountId: "acc" }),
      new m.MessagingBudget("b", { accountId: "acc", budget: 20 }),
      new m.DatabaseBudget("d", { databaseId: "db", budget: 20 }),
      new m.FlowControlKey("k", { region: "eu-central-1", key: "k" }),
      new m.MessagingQueue("q", { region: "eu-central-1", name: "q" }),
      new m.MessagingSigningKeys("sk", { region: "eu-central-1" }),
      new m.UrlGroup("g", { region: "eu-central-1", name: "g", endpoints: [{ url: "https://a.example.com" }] }),
      new m.MessagingSchedule("sc", { region: "eu-central-1", destination: "https://example.com", cron: "* * * * *" }),
    ];
    await Promise.all(all.map((r) => new Promise((resolve) => r.urn.apply(resolve))));
    for (const [req] of register.mock.calls)
      registered.set(req.getType().split(":").pop() ?? "", req.getAdditionalsecretoutputsList());
  });

  test.each(RESOURCES.map((r) => [r.type]))(
    "%s: the schema's secret outputs are the dynamic resource's additionalSecretOutputs",
    (name) => {
      const secretInSchema = Object.entries(schema.resources[`mgmt:index:${name}`].properties)
        .filter(([, p]) => p.secret)
        .map(([k]) => k);
      expect(registered.has(name)).toBe(true);
      expect(sorted(secretInSchema)).toEqual(sorted(registered.get(name)));
    },
  );
});

test("a function's answer keeps every token secret: the records' token fields, in lists too", () => {
  const tokenFields: [string, string, boolean][] = [];
  const visit = (
    fn: string,
    properties: Record<string, { secret?: boolean; $ref?: string; items?: { $ref?: string } }>,
  ) => {
    for (const [key, p] of Object.entries(properties)) {
      if (/token/i.test(key)) tokenFields.push([fn, key, p.secret === true]);
      const ref = (p.$ref ?? p.items?.$ref)?.replace("#/types/", "");
      const named = ref ? schema.types[ref] : undefined;
      if (named && "properties" in named) visit(fn, named.properties);
    }
  };
  for (const [fn, f] of Object.entries(schema.functions)) visit(fn, f.outputs.properties);
  expect(tokenFields.map(([fn]) => fn)).toEqual(
    expect.arrayContaining(["mgmt:index:getSearchIndexTokens", "mgmt:index:getMessagingAccountTokens"]),
  );
  // An index's or an account's record comes without them, so that nothing of it is secret in YAML.
  for (const record of [
    "mgmt:index:getSearchIndex",
    "mgmt:index:getSearchIndexes",
    "mgmt:index:getMessagingAccount",
    "mgmt:index:getMessagingAccounts",
  ])
    expect(tokenFields.map(([fn]) => fn)).not.toContain(record);
  expect(tokenFields.filter(([, , isSecret]) => !isSecret)).toEqual([]);
});
