/**
 * MessagingSigningKeys' rotation under faults, through both front doors without the engine
 * (test/support/providerRun.ts): a rotation whose answer is ambiguous rotates once in the same
 * `up`, and one whose `up` failed after the service rotated converges on the next `up`, a refresh
 * in between included, without a second rotation. The engine's own case is in
 * test/e2e/signingKeys.test.ts.
 */
import { MessagingSigningKeys } from "../../provider";
import type { FaultRuleInput } from "../../emulator";
import { testEnv, type TestEnv } from "../support/harness";
import { stopPlugins } from "../support/pluginProcess";
import { ProviderStack, type FrontDoor } from "../support/providerRun";

const SECRET_SIG = "4dabf18193072939515e22adb298388d";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(async () => {
  stopPlugins();
  await env.cleanup();
});
beforeEach(() => env.emu.emulator.reset());

const account = () => env.emu.users[0].accounts.find((a) => a.region === "eu-central-1")!;
const live = () => env.client.signingKeys({ region: "eu-central-1", token: account().token }).get();
/** Rotations the service carried out (a request dropped before processing changed nothing). */
const rotations = () =>
  env.emu.requests({ route: "POST /regional/:region/v2/keys/rotate" }).filter((r) => r.fault !== "drop").length;

/** A stored output as its value; through the plugin a secret must come wrapped. */
function valueOf(s: ProviderStack, key: string, door: FrontDoor): unknown {
  const v = s.state.get("keys")!.outputs[key] as unknown;
  if (door === "dynamic") return v;
  expect(v).toMatchObject({ [SECRET_SIG]: expect.any(String) });
  return (v as { value: unknown }).value;
}
const pairIn = (s: ProviderStack, door: FrontDoor) => ({
  current: valueOf(s, "current", door),
  next: valueOf(s, "next", door),
});

describe.each<FrontDoor>(["dynamic", "plugin"])("through the %s door", (door) => {
  let rotation = "a";
  const program = () => new MessagingSigningKeys("keys", { region: "eu-central-1", token: account().token, rotation });

  test.each<[string, FaultRuleInput]>([
    ["is dropped after the commit", { commitThenDrop: true }],
    ["is a 503 after the commit", { commitThenStatus: 503 }],
    ["never came (connection dropped before processing)", { drop: true }],
  ])("a rotation whose answer %s moves the pair exactly one step in the same up", async (_, rule) => {
    rotation = "a";
    const s = new ProviderStack(env.mgmt, door);
    await s.up(program);
    const before = await live();
    rotation = "b";
    env.emu.resetLog();
    env.emu.addFault({ method: "POST", path: "/v2/keys/rotate$", ...rule });
    expect(await s.up(program)).toMatchObject({ update: 1 });
    const after = await live();
    expect(after.current).toBe(before.next);
    expect(rotations()).toBe(1);
    expect(pairIn(s, door)).toEqual(after);
  });

  test("an up that fails after the service rotated converges on the next up, a refresh between, without a second rotation", async () => {
    rotation = "a";
    const s = new ProviderStack(env.mgmt, door);
    await s.up(program);
    const before = await live();
    rotation = "b";
    env.emu.resetLog();
    env.emu.addFault({ method: "GET", path: "/v2/keys$", delayMs: 0 }); // the read before the rotation passes
    env.emu.addFault({ method: "POST", path: "/v2/keys/rotate$", commitThenDrop: true });
    env.emu.addFault({ method: "GET", path: "/v2/keys$", status: 400 });
    await expect(s.up(program)).rejects.toThrow(/could not rotate signing keys in eu-central-1/);
    expect(rotations()).toBe(1);
    // The refresh records the pair the lost rotation made; the value is still the old one.
    await s.refresh();
    expect(pairIn(s, door)).toEqual(await live());
    await s.up(program);
    expect(rotations()).toBe(1);
    const after = await live();
    expect(after.current).toBe(before.next);
    expect(pairIn(s, door)).toEqual(after);
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    ["an empty rotation", { region: "eu-central-1", rotation: "" }, /rotation: must not be empty/],
    ["an unknown region", { region: "mars-1" }, /region: [^\n]*"eu-central-1"[^\n]*"us-east-1"/],
  ])("%s fails the preview in one line, and nothing is sent", async (_, args, message) => {
    const s = new ProviderStack(env.mgmt, door);
    env.emu.resetLog();
    const bad = () => new MessagingSigningKeys("keys", { token: account().token, ...args } as never);
    const failed = await s.preview(bad).then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(failed).toMatch(message);
    expect(failed).not.toMatch(/\n/);
    expect(env.emu.requests()).toEqual([]);
  });
});
