/**
 * The release folder (`npm run release`, issue 64 items 2 and 3), as a user without this package
 * would use it: the plugin archive installed by `pulumi plugin install --file` runs a YAML program
 * with no `node` on PATH; with an empty Pulumi home and automatic acquisition on, the engine
 * downloads the archive itself from the address the Python wheel carries (served here from the
 * release folder) for an inline program of Python's Automation API; and each SDK package
 * installs into a fresh folder and imports (pip, npm, a go.mod that requires the Go module).
 */
import { execFile, execFileSync } from "node:child_process";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { mgmtEnv } from "../../provider/automation";
import { installPlugin } from "../../provider/plugin/install";
import { PLUGIN_MAIN } from "../support/pluginProcess";
import { testEnv, type TestEnv } from "../support/harness";
import { pathWithoutNode, pythonVenv, releaseFolder, TEST_DOWNLOAD_URL, type ReleaseFolder } from "../support/release";
import { workspaceGoEnv } from "../support/goWorkspace";

const execFileAsync = promisify(execFile);
/** A command's output; a failure's message holds its output, so that a red test says why. */
const run = (file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv }) =>
  execFileAsync(file, args, options).catch((err: Error & { stdout?: string; stderr?: string }) => {
    err.message += `\n${err.stdout ?? ""}${err.stderr ?? ""}`;
    throw err;
  });
const ROOT = path.resolve(__dirname, "../..");

let env: TestEnv;
let rel: ReleaseFolder;
let dir: string;
let bareBin: string;

beforeAll(async () => {
  rel = releaseFolder();
  env = await testEnv();
  dir = mkdtempSync(path.join(tmpdir(), "mgmt-release-"));
  bareBin = pathWithoutNode(path.join(dir, "bin"));
}, 600_000);

afterAll(async () => {
  await env?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The environment of a CLI run with its own Pulumi home and backend, the service's settings, and PATH without node. */
function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const state = path.join(home, "state");
  mkdirSync(state, { recursive: true });
  const keep = ["HOME", "TMPDIR", "LANG"].filter((k) => process.env[k] !== undefined);
  return {
    ...Object.fromEntries(keep.map((k) => [k, process.env[k]!])),
    ...mgmtEnv(env.mgmt),
    PATH: bareBin,
    PULUMI_HOME: home,
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: "test-only-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    ...extra,
  };
}

/** A Pulumi home of its own with the archive installed by Pulumi's command (no downloads), and its CLI environment. */
async function installed(name: string): Promise<{ e: NodeJS.ProcessEnv; exe: string }> {
  const home = path.join(dir, name);
  const e = cliEnv(home, { PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" });
  await run(path.join(bareBin, "pulumi"), ["plugin", "install", "resource", "mgmt", "0.1.0", "--file", rel.archive], {
    env: e,
  });
  return { e, exe: path.join(home, "plugins", "resource-mgmt-v0.1.0", "pulumi-resource-mgmt") };
}

const indexNamed = async (name: string) => (await env.client.searchIndexes.list()).find((i) => i.name === name);

test("the plugin archive installs with `pulumi plugin install --file` and runs a YAML program with no node on PATH: an index, and Construct (MessagingControls) with its children", async () => {
  const { e, exe } = await installed("yaml-home");
  const pulumi = path.join(bareBin, "pulumi");
  // An executable of its own (ELF), not a script naming a node.
  expect(readFileSync(exe).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  const account = (await env.client.messagingAccounts.list()).find(
    (a) => a.region === "eu-central-1" && a.type === "paid",
  )!;
  // A key comes into being when messages are published: this one has been, and runs unpaused.
  const keys = env.emu.emulator.data.accounts.find((a) => a.record.id === account.id)!.keys;
  keys["release-key"] = { waitListSize: 2, paused: false, rateResets: 0 };

  // One stack for both (an engine run costs seconds of CPU before it does anything).
  const project = path.join(dir, "yaml");
  mkdirSync(project);
  writeFileSync(
    path.join(project, "Pulumi.yaml"),
    `name: mgmt-release-yaml
runtime: yaml
resources:
  docs:
    type: mgmt:index:SearchIndex
    properties:
      name: release-yaml
      region: eu-west-1
      type: free
  controls:
    type: mgmt:index:MessagingControls
    properties:
      region: eu-central-1
      token:
        fn::secret: ${account.token}
      flowControlKeys:
        - key: release-key
          paused: true
outputs:
  indexId: \${docs.id}
  keyStates: \${controls.keyStates}
`,
  );
  const cli = (args: string[]) => run(pulumi, args, { cwd: project, env: e });
  await cli(["stack", "init", "dev"]);
  const up = await cli(["up", "--yes", "--skip-preview"]);
  // The stack, the index, the component and its key.
  expect(up.stdout).toMatch(/\+ 4 created/);
  expect(await indexNamed("release-yaml")).toBeDefined();
  expect(up.stdout).toContain("mgmt:index:FlowControlKey controls-key-release-key created");
  expect(keys["release-key"].paused).toBe(true);
  // Bad input: the executable's check, the node-run plugin's one line.
  writeFileSync(
    path.join(project, "Pulumi.yaml"),
    readFileSync(path.join(project, "Pulumi.yaml"), "utf8").replace("type: free", "type: gold"),
  );
  const refusal = async (args: string[] = []) => {
    const out = await cli(["preview", ...args]).then(
      () => "",
      (err: { stdout: string }) => err.stdout,
    );
    return out
      .split("\n")
      .find((line) => /type: .*free.*payg/.test(line))
      ?.trim();
  };
  const refused = await refusal();
  expect(refused).toBeDefined();
  // The node-run plugin (the npm launcher) refuses it in the same line.
  const launcher = path.join(dir, "node-plugin");
  installPlugin(launcher, PLUGIN_MAIN);
  const yaml = readFileSync(path.join(project, "Pulumi.yaml"), "utf8");
  writeFileSync(
    path.join(project, "Pulumi.yaml"),
    yaml.replace(
      "runtime: yaml\n",
      `runtime: yaml\nplugins:\n  providers:\n    - name: mgmt\n      path: ${launcher}\n`,
    ),
  );
  expect(await refusal()).toBe(refused);
  writeFileSync(path.join(project, "Pulumi.yaml"), yaml);
  await cli(["destroy", "--yes", "--skip-preview"]);
  expect(await indexNamed("release-yaml")).toBeUndefined();
  expect(keys["release-key"].paused).toBe(false);
}, 300_000);

const PYTHON_PROGRAM = `
import json, sys
import pulumi
from pulumi import automation as auto
import pulumi_mgmt as mgmt
from pulumi_mgmt import _utilities

def program():
    docs = mgmt.SearchIndex("docs", name="release-python", region="eu-west-1", type="free")
    pulumi.export("indexId", docs.id)

stack = auto.create_or_select_stack(stack_name="dev", project_name="mgmt-release-python", program=program)
if sys.argv[1] == "up":
    result = stack.up(on_output=lambda line: print(line, file=sys.stderr))
    print(json.dumps({"downloadURL": _utilities.get_plugin_download_url(), "indexId": result.outputs["indexId"].value}))
else:
    stack.destroy(on_output=lambda line: print(line, file=sys.stderr))
    print(json.dumps({}))
`;

test("the engine downloads the archive from the wheel's pluginDownloadURL into an empty Pulumi home, for an inline Python program", async () => {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? "");
    const file = path.join(rel.dir, path.basename(decodeURIComponent(req.url ?? "")));
    if (req.method !== "GET" || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-length": statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const python = pythonVenv(path.join(dir, "venv"), [rel.wheel]);
    const home = path.join(dir, "python-home");
    mkdirSync(home);
    const program = path.join(dir, "program.py");
    writeFileSync(program, PYTHON_PROGRAM);
    // The engine's download and Python's workspaces go into temporary files they leave behind:
    // here they go into the test's own folder, removed after it.
    const tmp = path.join(dir, "python-tmp");
    mkdirSync(tmp);
    const e = cliEnv(home, {
      TMPDIR: tmp,
      // The wheel's address, TEST_DOWNLOAD_URL, is a host that does not exist: redirected here.
      PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `^https://mgmt-release\\.invalid/=http://127.0.0.1:${port}`,
    });
    delete e.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION;
    const up = await run(python, [program, "up"], { cwd: dir, env: e });
    const result = JSON.parse(up.stdout.trim().split("\n").pop()!) as { downloadURL: string; indexId: string };
    expect(result.downloadURL).toBe(TEST_DOWNLOAD_URL);
    expect(requests).toContain("/pulumi-resource-mgmt-v0.1.0-linux-amd64.tar.gz");
    expect(existsSync(path.join(home, "plugins", "resource-mgmt-v0.1.0", "pulumi-resource-mgmt"))).toBe(true);
    expect((await indexNamed("release-python"))?.id).toBe(result.indexId);
    await run(python, [program, "destroy"], { cwd: dir, env: e });
    expect(await indexNamed("release-python")).toBeUndefined();
  } finally {
    server.close();
  }
}, 600_000);

test("the Node.js SDK tarball installs with npm into a fresh folder and imports", async () => {
  const project = path.join(dir, "npm");
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "try-mgmt-sdk", private: true }));
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock", rel.npmTarball], {
    cwd: project,
  });
  const { stdout } = await run(
    process.execPath,
    [
      "-e",
      `const m = require("@pulumi-mgmt/mgmt"); const u = require("@pulumi-mgmt/mgmt/utilities");
       console.log(JSON.stringify({ SearchIndex: typeof m.SearchIndex, url: u.resourceOptsDefaults().pluginDownloadURL }));`,
    ],
    { cwd: project },
  );
  expect(JSON.parse(stdout)).toEqual({ SearchIndex: "function", url: TEST_DOWNLOAD_URL });
}, 300_000);

test("the Go module builds in a fresh module that requires it at v0.1.0 (replaced by the release folder's copy)", () => {
  const project = path.join(dir, "gomod");
  mkdirSync(project);
  writeFileSync(
    path.join(project, "go.mod"),
    `module example.com/trymgmt

go 1.25

require github.com/pulumi-mgmt/pulumi-mgmt/sdk/go v0.1.0

replace github.com/pulumi-mgmt/pulumi-mgmt/sdk/go => ${rel.goModule}
`,
  );
  writeFileSync(
    path.join(project, "main.go"),
    `package main

import (
	"fmt"
	"reflect"

	"github.com/pulumi-mgmt/pulumi-mgmt/sdk/go/mgmt"
)

func main() { fmt.Println(reflect.TypeOf(mgmt.SearchIndexArgs{}).Name()) }
`,
  );
  // In a copy of the repository's Go workspace with the released module in sdk/go's place: the
  // same module graph as the CLI's build, so only the SDK's own packages compile. The workspace's
  // replace is this module's own, and overrides the other modules' replaces of sdk/go.
  const work =
    readFileSync(path.join(ROOT, "go.work"), "utf8")
      .replace(/^\t\.\/sdk\/go\n/m, "")
      .replace(/^\t\.\/(\S+)$/gm, `\t${ROOT}/$1`)
      .replace(/^use \(/m, `use (\n\t${project}`) +
    `\nreplace github.com/pulumi-mgmt/pulumi-mgmt/sdk/go => ${rel.goModule}\n`;
  writeFileSync(path.join(project, "go.work"), work);
  execFileSync("go", ["build", "-trimpath", "-o", path.join(project, "try"), "."], {
    cwd: project,
    env: { ...workspaceGoEnv(), GOWORK: path.join(project, "go.work") },
    stdio: ["ignore", "ignore", "inherit"],
  });
  expect(execFileSync(path.join(project, "try"), { encoding: "utf8" }).trim()).toBe("SearchIndexArgs");
  // The release's address, not the schema's default, is the one the Go SDK registers.
  expect(readFileSync(path.join(rel.goModule, "mgmt", "internal", "pulumiUtilities.go"), "utf8")).toContain(
    `"${TEST_DOWNLOAD_URL}"`,
  );
}, 600_000);
