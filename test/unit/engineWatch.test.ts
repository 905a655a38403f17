/**
 * The dynamic provider's host watches its engine (provider/engineWatch.ts) at the address the CLI
 * passes last, after any flags of its own: with `--tracing` before it, a host whose engine is gone
 * still exits.
 */
import { createServer } from "node:net";
import { engineAddressOf, watchEngine } from "../../provider/engineWatch";

test("the engine's address is the last argument, after the CLI's flags", () => {
  expect(engineAddressOf(["127.0.0.1:4000"])).toBe("127.0.0.1:4000");
  expect(engineAddressOf(["--logtostderr", "-v=9", "--tracing", "127.0.0.1:9", "127.0.0.1:4000"])).toBe(
    "127.0.0.1:4000",
  );
  expect(engineAddressOf(["[::1]:4000"])).toBe("[::1]:4000");
  expect(engineAddressOf([])).toBeUndefined();
  expect(engineAddressOf(["--logflow"])).toBeUndefined();
});

test("a dynamic provider host started with the CLI's flags exits once its engine is gone", async () => {
  const engine = createServer();
  await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
  const { port } = engine.address() as { port: number };
  const exited = new Promise<number>((resolve) =>
    watchEngine(
      ["node", "/x/node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js", "--tracing", "t:1", `127.0.0.1:${port}`],
      resolve,
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 1200));
  engine.close();
  const late = new Promise<string>((resolve) => setTimeout(() => resolve("not watched"), 3000).unref());
  expect(await Promise.race([exited, late])).toBe(1);
});
