/**
 * The Pulumi template (examples/new-project) as a user gets it: written out of the packed tarball by
 * `mgmt-template`, then `pulumi new` with config given on the command line where a user answers
 * prompts, the password and the token stored as secrets, and the generated project previewed,
 * applied and destroyed against the emulator. Nothing is edited by hand between the steps.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PACKAGE_ROOT, pulumiCliDir } from "../../provider/automation";
import { testEnv, type TestEnv } from "../support/harness";

const run = promisify(execFile);
let env: TestEnv;
let dir: string;
beforeAll(async () => {
  env = await testEnv();
  dir = mkdtempSync(path.join(tmpdir(), "mgmt-template-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await env.cleanup();
});

test("the template as the README says: written from a packed tarball by mgmt-template, then pulumi new; prompts answered, secrets kept secret, and the project runs", async () => {
  // What a user who was handed the tarball does (README "Starting a new project from the template").
  const tarball = "pulumi-mgmt-0.1.0.tgz";
  cpSync(path.join(PACKAGE_ROOT, "node_modules/.cache/pulumi-mgmt/pulumi-mgmt.tgz"), path.join(dir, tarball));
  await run("tar", ["-xzf", tarball, "package/dist", "package/examples", "package/package.json"], { cwd: dir });
  await run("node", ["package/dist/provider/cli/template.js", "--package", tarball, "./mgmt-template"], { cwd: dir });
  const template = path.join(dir, "mgmt-template");
  const manifest = JSON.parse(readFileSync(path.join(template, "package.json"), "utf8"));
  expect(manifest.dependencies["pulumi-mgmt"]).toBe(`file:${path.join(dir, tarball)}`);
  // Without --package the template asks the registry for this release line.
  await run("node", ["package/dist/provider/cli/template.js", "./registry-template"], { cwd: dir });
  expect(JSON.parse(readFileSync(path.join(dir, "registry-template/package.json"), "utf8")).dependencies["pulumi-mgmt"]).toBe("^0.1.0");

  const alice = env.emu.users[0];
  const token = alice.accounts[0].token;
  const shellEnv = {
    ...process.env,
    PATH: `${pulumiCliDir()}${path.delimiter}${process.env.PATH}`,
    PULUMI_HOME: path.join(dir, ".pulumi-home"),
    PULUMI_BACKEND_URL: `file://${dir}`,
    PULUMI_CONFIG_PASSPHRASE: "test-only-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  const project = path.join(dir, "my-search");
  // What a user types at the prompts. `pulumi new -c key=value` stores a value as plain text even
  // where the template says `secret: true` (3.248), so the secrets go through `config set --secret`,
  // as the README says; a user answering the prompts gets them encrypted by the template.
  const answers = {
    "mgmt:baseUrl": env.emu.baseUrl,
    "mgmt:username": alice.username,
    "mgmt:messagingUrl": env.emu.messagingUrl,
    "mgmt:regionalMessagingUrl": env.emu.regionalMessagingUrl,
  };
  const templateYaml = readFileSync(path.join(template, "Pulumi.yaml"), "utf8");
  // Each config key's block in the template: the password and the token are prompted as secrets.
  const block = (key: string) => templateYaml.split(`    ${key}:`)[1]?.split(/\n    \S/)[0] ?? "";
  for (const key of ["mgmt:password", "mgmt:messagingToken"]) expect(block(key)).toContain("secret: true");
  for (const key of Object.keys(answers)) expect(block(key)).not.toContain("secret: true");
  for (const key of Object.keys(answers)) expect(templateYaml).toContain(`${key}:`);
  await run("pulumi", ["new", template, "--yes", "--non-interactive", "--name", "my-search", "--stack", "dev", "--dir", project, ...Object.entries(answers).flatMap(([k, v]) => ["-c", `${k}=${v}`])], { env: shellEnv, maxBuffer: 32 << 20 });
  const pulumiIn = (...args: string[]) => run("pulumi", [...args, "--stack", "dev", "--non-interactive"], { cwd: project, env: shellEnv, maxBuffer: 32 << 20 });
  await pulumiIn("config", "set", "--secret", "mgmt:password", alice.password);
  await pulumiIn("config", "set", "--secret", "mgmt:messagingToken", token);

  const settings = readFileSync(path.join(project, "Pulumi.dev.yaml"), "utf8");
  expect(settings).toMatch(/mgmt:password:\n\s+secure: /);
  expect(settings).toMatch(/mgmt:messagingToken:\n\s+secure: /);
  expect(settings).not.toContain(alice.password);
  expect(settings).not.toContain(token);
  expect(settings).toContain(`mgmt:baseUrl: ${env.emu.baseUrl}`);

  const pulumi = pulumiIn;
  await pulumi("preview");
  await pulumi("up", "--yes");
  expect(env.emu.emulator.data.indexes.map((i) => i.record.name)).toEqual(["my-search-search"]);
  await pulumi("destroy", "--yes");
  expect(env.emu.emulator.data.indexes).toEqual([]);
}, 10 * 60_000);
