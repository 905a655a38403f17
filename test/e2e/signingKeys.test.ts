/**
 * Issue 67 item 3: MessagingSigningKeys through the real engine against the emulator, one stack
 * through its life (engine runs are expensive, so the steps share it): create, a no-op preview
 * with no call, a rotation that every consumer in the same `up` receives, a rotation whose answer
 * is lost in an `up` that then fails converging on the next `up` without a second rotation,
 * refresh, and destroy leaving the keys; then `pulumi import` of the keys through the plugin.
 * Starts the CLI: run it under the engine lock.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import { MessagingSigningKeys, getSigningKeysOutput } from "../../provider";
import { installPlugin } from "../../provider/plugin/install";
import { releasedMessage } from "../../provider/resources/released";
import { PLUGIN_MAIN } from "../support/pluginProcess";
import {
  apiCalls,
  backendContains,
  exported,
  failure,
  isSecret,
  SECRET_SIG,
  pulumiCliDir,
  testEnv,
  type TestEnv,
} from "../support/harness";

const TYPE = "pulumi-nodejs:dynamic/mgmt:MessagingSigningKeys";
const RELEASED = releasedMessage("the signing keys of the messaging account in eu-central-1");

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());

const account = (region = "eu-central-1") => env.emu.users[0].accounts.find((a) => a.region === region)!;
const live = () => env.client.signingKeys({ region: "eu-central-1", token: account().token }).get();
const rotations = () => env.emu.requests({ route: "POST /regional/:region/v2/keys/rotate" }).length;

test("create, a no-op preview with no call, a rotation every consumer receives, a lost rotation converging once, refresh, destroy releasing", async () => {
  const token = account().token;
  let rotation = "2026-01";
  // The function reads the keys after the resource acted (its token comes through the resource's
  // output): only in the runs that ask, so that a no-op preview makes no call.
  let withReader = false;
  const s = await env.stack({
    program: async () => {
      const keys = new MessagingSigningKeys("keys", { region: "eu-central-1", token, rotation });
      // A consumer of the pair: what a receiver's settings are built from.
      const receiver = pulumi
        .all([keys.current, keys.next])
        .apply(([current, next]) => JSON.stringify({ currentSigningKey: current, nextSigningKey: next }));
      const read = withReader
        ? getSigningKeysOutput({ region: "eu-central-1", token: keys.next.apply(() => token) })
        : undefined;
      return { current: keys.current, next: keys.next, receiver, read };
    },
  });
  const seen: string[] = [];
  const pairOf = (outputs: Record<string, { value: unknown; secret: boolean }>) => {
    for (const k of ["current", "next", "receiver"]) expect(outputs[k].secret).toBe(true);
    const pair = { current: outputs.current.value as string, next: outputs.next.value as string };
    seen.push(pair.current, pair.next);
    expect(JSON.parse(outputs.receiver.value as string)).toEqual({
      currentSigningKey: pair.current,
      nextSigningKey: pair.next,
    });
    return pair;
  };

  // Create: the keys as the service has them; creating with a rotation value does not rotate.
  env.emu.resetLog();
  const created = pairOf((await s.up()).outputs);
  expect(rotations()).toBe(0);
  expect(apiCalls(env.emu)["GET /regional/:region/v2/keys"]).toBe(1);
  expect(created).toEqual(await live());

  // Nothing to do: no call at all.
  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 2 });
  expect(env.emu.requests()).toEqual([]);

  // A new value rotates once; the pair after the rotation is what the outputs, the consumer and a
  // read after the resource all receive in this up.
  rotation = "2026-02";
  withReader = true;
  env.emu.resetLog();
  const up = await s.up();
  expect(up.summary.resourceChanges).toEqual({ same: 1, update: 1 });
  const rotated = pairOf(up.outputs);
  expect(rotations()).toBe(1);
  expect(rotated.current).toBe(created.next);
  expect(rotated).toEqual(await live());
  expect(up.outputs.read.secret).toBe(true);
  expect(up.outputs.read.value).toEqual(rotated);
  withReader = false;

  // A rotation the service commits whose answer is lost, and the read that would tell is refused:
  // the up fails (one line), the stack still holds the old pair and value, the keys moved once.
  rotation = "2026-03";
  env.emu.resetLog();
  env.emu.addFault({ method: "GET", path: "/v2/keys$", delayMs: 0 }); // the read before the rotation passes
  env.emu.addFault({ method: "POST", path: "/v2/keys/rotate$", commitThenDrop: true });
  env.emu.addFault({ method: "GET", path: "/v2/keys$", status: 400 });
  const failed = await failure(s.up());
  expect(failed).toMatch(/could not rotate signing keys in eu-central-1/);
  expect(failed).not.toMatch(/\n\s+at /);
  expect(rotations()).toBe(1);
  const afterLoss = await live();
  expect(afterLoss.current).toBe(rotated.next);
  expect((await exported(s, TYPE))[0].outputs).toMatchObject({ rotation: "2026-02" });
  // The next up takes that rotation as this value's: no second one, and the outputs are the pair.
  env.emu.resetLog();
  const converged = await s.up();
  expect(converged.summary.resourceChanges).toEqual({ same: 1, update: 1 });
  expect(rotations()).toBe(0);
  expect(pairOf(converged.outputs)).toEqual(afterLoss);
  expect(await live()).toEqual(afterLoss);
  expect((await exported(s, TYPE))[0].outputs).toMatchObject({ rotation: "2026-03" });

  // Rotated elsewhere (the console): refresh reads the new pair (kept secret), and the next up has
  // nothing to change, no call to make, and hands the refreshed pair to the consumers.
  const elsewhere = await env.client.signingKeys({ region: "eu-central-1", token }).rotate();
  env.emu.resetLog();
  await s.refresh();
  expect(rotations()).toBe(0);
  const refreshed = (await exported(s, TYPE))[0].outputs!;
  for (const k of ["current", "next", "nextWhenActed", "token"]) expect(isSecret(refreshed[k])).toBe(true);
  env.emu.resetLog();
  const after = await s.up();
  expect(after.summary.resourceChanges).toEqual({ same: 2 });
  expect(env.emu.requests()).toEqual([]);
  expect(pairOf(after.outputs)).toEqual(elsewhere);

  // No key in plain text anywhere in the backend (state, history, backups).
  expect(backendContains(s, [...seen, token])).toEqual([]);

  // Destroy changes nothing on the service (keys cannot be deleted) and says the keys were released.
  env.emu.resetLog();
  const destroyed = await s.destroy();
  expect(destroyed.stdout).toContain(RELEASED);
  expect(env.emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
  expect(await live()).toEqual(elsewhere);
}, 600_000);

test("pulumi import through the plugin records the keys as found, secret; destroy releases them", async () => {
  const { emu } = env;
  const alice = emu.users[0];
  const dir = mkdtempSync(path.join(tmpdir(), "mgmt-keys-import-"));
  try {
    const project = path.join(dir, "project");
    const cli = pulumiCliDir();
    const run = async (...args: string[]) => {
      try {
        const { stdout } = await promisify(execFile)(path.join(cli, "pulumi"), args, {
          cwd: project,
          maxBuffer: 16 * 1024 * 1024,
          env: {
            PATH: [cli, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
            HOME: dir,
            PULUMI_HOME: path.join(dir, "home"),
            PULUMI_BACKEND_URL: `file://${path.join(dir, "state")}`,
            PULUMI_CONFIG_PASSPHRASE: "keys-import-test",
            PULUMI_SKIP_UPDATE_CHECK: "true",
            PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
          },
        });
        return stdout;
      } catch (err) {
        const e = err as Error & { stdout?: string; stderr?: string };
        throw new Error(`pulumi ${args.join(" ")} failed:\n${e.stdout}\n${e.stderr}`);
      }
    };
    const pluginDir = path.join(dir, "plugin");
    installPlugin(pluginDir, PLUGIN_MAIN);
    for (const d of [project, path.join(dir, "home"), path.join(dir, "state")]) mkdirSync(d);
    symlinkSync(path.resolve(__dirname, "../../node_modules"), path.join(project, "node_modules"));
    writeFileSync(
      path.join(project, "Pulumi.yaml"),
      `name: mgmt-keys-import\nruntime: nodejs\nplugins:\n  providers:\n    - name: mgmt\n      path: ${pluginDir}\n`,
    );
    const program = (declared: boolean) =>
      writeFileSync(
        path.join(project, "index.js"),
        declared
          ? 'const pulumi = require("@pulumi/pulumi");\nnew pulumi.CustomResource("mgmt:index:MessagingSigningKeys", "keys", { region: "us-east-1" });\n'
          : "",
      );
    program(false);
    const messaging = alice.accounts.find((a) => a.region === "us-east-1")!;
    await run("stack", "init", "dev");
    await run("config", "set", "mgmt:baseUrl", emu.baseUrl);
    await run("config", "set", "mgmt:username", alice.username);
    await run("config", "set", "--secret", "mgmt:password", alice.password);
    await run("config", "set", "mgmt:regionalMessagingUrl", emu.regionalMessagingUrl);
    await run("config", "set", "--secret", "mgmt:messagingToken", messaging.token);

    const bad = await failure(
      run("import", "--yes", "--generate-code=false", "mgmt:index:MessagingSigningKeys", "keys", "mars-1"),
    );
    expect(bad).toMatch(
      /import id "mars-1" of messaging signing keys: give the account's region, one of eu-central-1, us-east-1/,
    );

    await run("import", "--yes", "--generate-code=false", "mgmt:index:MessagingSigningKeys", "keys", "us-east-1");
    const pair = await env.client.signingKeys({ region: "us-east-1", token: messaging.token }).get();
    const resources = (
      JSON.parse(await run("stack", "export", "--show-secrets")) as {
        deployment: { resources: { type: string; id?: string; inputs?: object; outputs?: Record<string, unknown> }[] };
      }
    ).deployment.resources;
    const keys = resources.find((r) => r.type === "mgmt:index:MessagingSigningKeys")!;
    expect(keys.id).toBe("us-east-1");
    expect(keys.inputs).toEqual({ region: "us-east-1" });
    // Secret in the state: the export shows them only under the secret signature.
    const secretOf = (value: string) => ({ [SECRET_SIG]: expect.any(String), plaintext: JSON.stringify(value) });
    expect(keys.outputs).toMatchObject({
      region: "us-east-1",
      current: secretOf(pair.current),
      next: secretOf(pair.next),
    });
    const stateText = readdirSync(path.join(dir, "state"), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(path.join(e.parentPath, e.name), "utf8"))
      .join("\n");
    for (const plain of [pair.current, pair.next, messaging.token]) expect(stateText).not.toContain(plain);

    // A program declaring what the import found has nothing to do, with no call that writes (the
    // up also lifts the protection an import sets).
    program(true);
    emu.resetLog();
    await run("preview", "--expect-no-changes");
    await run("up", "--yes", "--expect-no-changes");
    expect(emu.requests().filter((r) => r.method !== "GET")).toEqual([]);

    emu.resetLog();
    const destroyed = await run("destroy", "--yes");
    expect(destroyed).toContain(releasedMessage("the signing keys of the messaging account in us-east-1"));
    expect(emu.requests().filter((r) => r.method !== "GET")).toEqual([]);
    expect(await env.client.signingKeys({ region: "us-east-1", token: messaging.token }).get()).toEqual(pair);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
