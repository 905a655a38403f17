/**
 * `token` and `readOnlyToken` read from the one `tokens` output. Under Pulumi's mocks (users' own
 * unit tests) they resolve from what the mock returns, and to undefined, not an error, when the
 * mock only echoes the inputs. Secrecy is the engine's part: test/e2e/searchIndex.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";

pulumi.runtime.setMocks(
  {
    newResource: (args) => ({
      id: `${args.name}-id`,
      state: args.name === "echo" ? args.inputs : { ...args.inputs, tokens: { token: "t-1", readOnlyToken: "r-1" } },
    }),
    call: () => ({}),
  },
  "project",
  "stack",
  false,
);

// A getter that throws inside apply leaves its Output unresolved: fail fast instead of hanging.
const valueOf = <T>(o: pulumi.Output<T>) =>
  Promise.race([
    new Promise<T>((resolve) => o.apply(resolve)),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the Output never resolved")), 5_000).unref()),
  ]);

test("token and readOnlyToken come from the tokens output", async () => {
  const { SearchIndex } = await import("../../provider");
  const idx = new SearchIndex("idx", { name: "n", region: "eu-west-1", type: "free" });
  expect(await valueOf(idx.token)).toBe("t-1");
  expect(await valueOf(idx.readOnlyToken)).toBe("r-1");
  expect(await valueOf(idx.tokens)).toEqual({ token: "t-1", readOnlyToken: "r-1" });
});

test("a mock that echoes the inputs gives undefined tokens, not an error", async () => {
  const { SearchIndex } = await import("../../provider");
  const idx = new SearchIndex("echo", { name: "n", region: "eu-west-1", type: "free" });
  expect(await valueOf(idx.token)).toBeUndefined();
  expect(await valueOf(idx.readOnlyToken)).toBeUndefined();
});
