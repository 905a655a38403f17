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

test(
  "the template as the README says: written from a packed tarball by mgmt-template, then pulumi new; prompts answered, secrets kept secret, and the project runs",
  async () => {
    // What a user who was handed the tarball does (docs/automation.md, "Starting a new project from the template").
    const tarball = "pulumi-mgmt-0.1.0.tgz";
    cpSync(path.join(PACKAGE_ROOT, "node_modules/.cache/pulumi-mgmt/pulumi-mgmt.tgz"), path.join(dir, tarball));
    // The documented lines, as written: the code block's first three commands.
    const docs = readFileSync(path.join(PACKAGE_ROOT, "docs/automation.md"), "utf8");
    const [untar, writeTemplate, pulumiNew] = docs
      .split("### Starting a new project from the template")[1]
      .split("```sh\n")[1]
      .split("\n")
      .filter((l) => l && !l.startsWith("#"));
    expect([untar, writeTemplate].map((l) => l.split(" ")[0])).toEqual(["tar", "node"]);
    expect(pulumiNew).toMatch(/^pulumi new .* --dir my-project$/);
    await run("sh", ["-c", untar], { cwd: dir });
    await run("sh", ["-c", writeTemplate], { cwd: dir });
    const template = path.join(dir, "mgmt-template");
    // The project ignores its dependencies and the emulator's files (README, "A first program").
    expect(readFileSync(path.join(template, ".gitignore"), "utf8").split("\n")).toEqual(
      expect.arrayContaining(["/node_modules/", "/.emulator.env", "/.emulator.json", "/emulator.pid"]),
    );
    const manifest = JSON.parse(readFileSync(path.join(template, "package.json"), "utf8"));
    expect(manifest.dependencies["pulumi-mgmt"]).toBe(`file:${path.join(dir, tarball)}`);
    // Without --package the template asks the registry for this release line.
    await run("node", ["package/dist/provider/cli/template.js", "./registry-template"], { cwd: dir });
    expect(
      JSON.parse(readFileSync(path.join(dir, "registry-template/package.json"), "utf8")).dependencies["pulumi-mgmt"],
    ).toBe("^0.1.0");

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
    const project = path.join(dir, "my-project");
    // What a user types at the prompts. `pulumi new -c key=value` stores a value as plain text even
    // where the template says `secret: true` (3.248), so the secrets go through `config set --secret`,
    // as docs/automation.md says; a user answering the prompts gets them encrypted by the template.
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
    // The documented `pulumi new` line as written, in the folder the lines above ran in, with the prompts' answers appended.
    const flags = [
      "--yes",
      "--non-interactive",
      "--name",
      "my-search",
      "--stack",
      "dev",
      ...Object.entries(answers).flatMap(([k, v]) => ["-c", `${k}=${v}`]),
    ];
    await run("sh", ["-c", `${pulumiNew} "$@"`, "sh", ...flags], { cwd: dir, env: shellEnv, maxBuffer: 32 << 20 });
    const pulumiIn = (...args: string[]) =>
      run("pulumi", [...args, "--stack", "dev", "--non-interactive"], {
        cwd: project,
        env: shellEnv,
        maxBuffer: 32 << 20,
      });
    await pulumiIn("config", "set", "--secret", "mgmt:password", alice.password);
    await pulumiIn("config", "set", "--secret", "mgmt:messagingToken", token);

    expect(readFileSync(path.join(project, ".gitignore"), "utf8")).toContain("/.emulator.env");
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
  },
  10 * 60_000,
);
