/**
 * Declaration cost in the program itself, under Pulumi's mocks (no engine): how long declaring
 * N search indexes takes against N sleep-only dynamic resources, and how many times a provider
 * was serialized. Run by bench/run.ts as a child process (mocks are process-wide); prints JSON.
 */
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";

const n = Number(process.argv[2] ?? "1000");
const serializer = require(
  path.join(path.dirname(require.resolve("@pulumi/pulumi")), "runtime/closure/serializeClosure.js"),
);
let serializations = 0;
const original = serializer.serializeFunction;
serializer.serializeFunction = (...args: unknown[]) => {
  serializations += 1;
  return original(...args);
};
pulumi.runtime.setMocks(
  { newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: () => ({}) },
  "bench",
  "declare",
  false,
);

const sleepProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    return { id: String(inputs.n), outs: inputs };
  },
};
class Sleep extends pulumi.dynamic.Resource {
  constructor(name: string, i: number) {
    super(sleepProvider, name, { n: i }, {}, "bench", "Sleep");
  }
}

async function declare(make: (i: number) => pulumi.Resource): Promise<number> {
  const start = process.hrtime.bigint();
  const all = Array.from({ length: n }, (_, i) => make(i));
  await Promise.all(all.map((r) => new Promise((resolve) => r.urn.apply(resolve))));
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function main(): Promise<void> {
  const { SearchIndex } = await import("../provider");
  const sleepMs = await declare((i) => new Sleep(`sleep-${i}`, i));
  const before = serializations;
  const indexMs = await declare(
    (i) => new SearchIndex(`idx-${i}`, { name: `n-${i}`, region: "eu-west-1", type: "free" }),
  );
  process.stdout.write(JSON.stringify({ n, indexMs, sleepMs, indexSerializations: serializations - before }) + "\n");
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
