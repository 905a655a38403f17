/**
 * The serialized provider (`__provider`, stored twice in every resource's state): a module
 * reference to the installed package, its size, what it must never carry, the fallback where the
 * package is not installed under node_modules/pulumi-mgmt/, and a stack whose state holds it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { MessagingBudget, MessagingControls, SearchIndex } from "../../provider";
import { providerForm } from "../../provider/resources/dynamicDoor";
import { forwardingClosure } from "../../provider/resources/forwardingClosure";
import { searchIndexStateSplit } from "../../bench/stateSize";
import { exported, testEnv, type TestEnv } from "../support/harness";

const ROOT = path.resolve(__dirname, "../..");
const INDEX = "pulumi-nodejs:dynamic/mgmt:SearchIndex";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.cleanup());
beforeEach(() => env.emu.emulator.reset());

test("each resource's provider is a require() of the installed package: at most 400 bytes, no credential, no path of this machine, no code", async () => {
  const account = env.emu.users[0].accounts.find((a) => a.region === "eu-central-1")!;
  env.emu.emulator.data.accounts.find((a) => a.record.id === account.id)!.keys["k"] = {
    waitListSize: 0,
    paused: false,
    rateResets: 0,
  };
  const s = await env.stack({
    program: async () => {
      for (let i = 0; i < 3; i++) new SearchIndex(`idx${i}`, { name: `form-${i}`, region: "eu-west-1", type: "free" });
      new MessagingBudget("budget", { accountId: account.id, budget: 30 });
      new MessagingControls("ops", {
        region: "eu-central-1",
        token: account.token,
        flowControlKeys: [{ key: "k" }],
        queues: [{ name: "q" }],
      });
    },
  });
  await s.up();
  const resources = (await s.stack.exportStack()).deployment.resources as {
    type: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
  }[];
  const ours = resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/mgmt:"));
  expect(ours.map((r) => r.type.split(":").pop()).sort()).toEqual([
    "FlowControlKey",
    "MessagingBudget",
    "MessagingQueue",
    "SearchIndex",
    "SearchIndex",
    "SearchIndex",
  ]);
  const secrets = [
    env.mgmt.password as string,
    account.token,
    ...(await env.client.searchIndexes.list()).map((i) => i.token),
  ];
  const machinePaths = [ROOT, os.homedir(), os.tmpdir(), process.cwd()];
  for (const r of ours) {
    const name = r.type.split(":").pop()!;
    const module = {
      SearchIndex: "searchIndex",
      MessagingBudget: "messagingBudget",
      FlowControlKey: "flowControlKey",
      MessagingQueue: "messagingQueue",
    }[name];
    for (const text of [String(r.inputs!.__provider), String(r.outputs!.__provider)]) {
      expect(text.length).toBeLessThanOrEqual(400);
      expect(text).toContain(`require("pulumi-mgmt/internal/providers/${module}")`);
      for (const secret of secrets) expect(text).not.toContain(secret);
      for (const p of machinePaths) expect(text).not.toContain(p);
      expect(text).not.toMatch(/load\(\)|\.check\(|\.create\(|configure\(/); // no implementation
    }
  }

  // State per search index as the engine writes it to the backend (secrets as ciphertext), split.
  const split = searchIndexStateSplit(s.backendDirFiles(), (outputs) => outputs.name === "form-0");
  expect(split.provider).toBeLessThanOrEqual(800);
  expect(split.provider + split.inputs + split.outputs).toBeLessThanOrEqual(1400);
  // Issue 13's limit, with the source position and stack trace the SDK adds to every resource.
  expect(split.total).toBeLessThanOrEqual(2500);
});

/** The closure form's text, as Pulumi's serializer writes it (dynamic/index.js serializeProvider). */
async function closureFormText(): Promise<string> {
  const sc = require(path.join(ROOT, "node_modules/@pulumi/pulumi/runtime/closure/serializeClosure.js")) as {
    serializeFunction: (f: () => unknown, o: object) => Promise<{ text: string }>;
  };
  const provider = forwardingClosure("searchIndex");
  return (await sc.serializeFunction(() => provider, { allowSecrets: true })).text;
}

test("a stack whose state holds the closure form refreshes, updates and destroys: it requires the same provider module", async () => {
  const closure = await closureFormText();
  expect(closure).toMatch(/require\(`pulumi-mgmt\/internal\/providers\/\$\{name\}`\)/);
  expect(closure).toContain('name: "searchIndex"');
  let name = "closure";
  const s = await env.stack({
    program: async () => void new SearchIndex("idx", { name, region: "eu-west-1", type: "free" }),
  });
  await s.up();
  const useClosure = async () => {
    const deployment = await s.stack.exportStack();
    for (const r of deployment.deployment.resources as {
      type: string;
      inputs: Record<string, unknown>;
      outputs: Record<string, unknown>;
    }[]) {
      if (r.type === INDEX) r.inputs.__provider = r.outputs.__provider = closure;
    }
    await s.stack.importStack(deployment);
    expect((await exported(s, INDEX))[0].outputs!.__provider).toBe(closure);
  };
  await useClosure();
  const [index] = await env.client.searchIndexes.list();
  await env.client.searchIndexes.rename(index.id, "renamed-elsewhere");
  await s.refresh();
  expect((await exported(s, INDEX))[0].outputs!.name).toBe("renamed-elsewhere");

  await useClosure();
  name = "closure-updated";
  await s.up();
  expect((await env.client.searchIndexes.list()).map((i) => [i.id, i.name])).toEqual([[index.id, "closure-updated"]]);

  await useClosure();
  await s.destroy();
  expect(await env.client.searchIndexes.list()).toEqual([]);
});

describe("the fallback to the closure form where the serializer would not write a require()", () => {
  const cwd = process.cwd();
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "pulumi-mgmt-layout-"));
  });
  afterEach(() => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  });
  /** A copy of the installed package (package.json and the provider modules) at `where`. */
  function installAt(where: string): void {
    const installed = path.join(ROOT, "node_modules/pulumi-mgmt");
    mkdirSync(path.join(where, "dist/provider/providers"), { recursive: true });
    writeFileSync(path.join(where, "package.json"), readFileSync(path.join(installed, "package.json")));
    // A stand-in module: the test checks which file would be loaded, not the provider itself.
    for (const m of ["searchIndex"])
      writeFileSync(
        path.join(where, `dist/provider/providers/${m}.js`),
        "module.exports = { check: async () => ({}) };",
      );
  }

  test("npm (node_modules/pulumi-mgmt is the package): module form", () => {
    installAt(path.join(dir, "node_modules/pulumi-mgmt"));
    process.chdir(dir);
    expect(providerForm("searchIndex")).toBe("module");
  });

  test("pnpm (node_modules/pulumi-mgmt links into node_modules/.pnpm/...): closure form", () => {
    const store = path.join(dir, "node_modules/.pnpm/pulumi-mgmt@0.1.0/node_modules/pulumi-mgmt");
    installAt(store);
    symlinkSync(store, path.join(dir, "node_modules/pulumi-mgmt"));
    process.chdir(dir);
    expect(providerForm("searchIndex")).toBe("closure");
  });

  test("Yarn Plug'n'Play or a linked checkout (no node_modules/pulumi-mgmt on the real path): closure form", () => {
    installAt(path.join(dir, "checkout"));
    mkdirSync(path.join(dir, "project/node_modules"), { recursive: true });
    symlinkSync(path.join(dir, "checkout"), path.join(dir, "project/node_modules/pulumi-mgmt"));
    process.chdir(path.join(dir, "project"));
    expect(providerForm("searchIndex")).toBe("closure");
    process.chdir(dir); // nothing installed at all
    expect(providerForm("searchIndex")).toBe("closure");
  });

  test("PULUMI_MGMT_PROVIDER_FORM=closure forces the closure form", () => {
    installAt(path.join(dir, "node_modules/pulumi-mgmt"));
    process.chdir(dir);
    process.env.PULUMI_MGMT_PROVIDER_FORM = "closure";
    try {
      expect(providerForm("searchIndex")).toBe("closure");
    } finally {
      delete process.env.PULUMI_MGMT_PROVIDER_FORM;
    }
  });
});
