/**
 * The program side: declaring many resources must not serialize the provider once per resource
 * (Pulumi caches a provider's serialization by object identity, so one object per provider).
 */
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";

const serializer = require(
  path.resolve(__dirname, "../../node_modules/@pulumi/pulumi/runtime/closure/serializeClosure.js"),
) as { serializeFunction: (...args: unknown[]) => unknown };
const serialize = jest.spyOn(serializer, "serializeFunction");

pulumi.runtime.setMocks(
  {
    newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
    call: () => ({}),
  },
  "project",
  "stack",
  false,
);

test("declaring 1,000 search indexes and 100 budgets serializes each provider once", async () => {
  const { SearchIndex, MessagingBudget } = await import("../../provider");
  const indexes = Array.from(
    { length: 1000 },
    (_, i) => new SearchIndex(`idx-${i}`, { name: `n-${i}`, region: "eu-west-1", type: "free" }),
  );
  const budgets = Array.from(
    { length: 100 },
    (_, i) => new MessagingBudget(`b-${i}`, { accountId: `acc-${i}`, budget: 20 }),
  );
  await Promise.all([...indexes, ...budgets].map((r) => new Promise((resolve) => r.urn.apply(resolve))));
  expect(serialize).toHaveBeenCalledTimes(2);
});
