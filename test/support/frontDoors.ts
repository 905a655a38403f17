/**
 * The languages a program reaches the `mgmt` plugin from, as one interface the proofs drive
 * (test/e2e/pluginProofs.test.ts): YAML (a Pulumi.yaml program, Pulumi's YAML host, the schema
 * from the plugin), Go (a program on the generated Go SDK, test/go/proof, run through Go's
 * Automation API) and Python (a program on the generated Python SDK installed with pip,
 * test/python/proof.py, run through Python's Automation API). Each front door declares the same
 * program: every resource of the package, the account read through a function, and an index made
 * out of band taken with the `import` option; the plugin is installed with its own command.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { mgmtConfigMap, type MgmtStack } from "../../provider/automation";
import { installPlugin } from "../../provider/plugin/install";
import { pulumiCliDir, testBackend, type TestEnv } from "./harness";
import { goBuild } from "./goWorkspace";
import { PLUGIN_MAIN } from "./pluginProcess";

/** What the program declares; a test changes these between runs. */
export interface Declared {
  indexType: string;
  messagingBudget: number;
  databaseBudget: number;
  paused: boolean;
  databaseId: string;
  /** An index made out of band, declared as found (adopted by its id) with the `import` option. */
  found?: FoundIndex;
}

/** What an imported index's inputs must be: what the plugin's read answers. */
export interface FoundIndex {
  id: string;
  name: string;
  region: string;
  type: string;
}

export interface Run {
  /** The engine's change summary: operation to count. */
  changes: Record<string, number>;
  outputs: Record<string, { value: unknown; secret: boolean }>;
  /** The engine's own output of the run (destroy only). */
  output?: string;
}

export interface FrontDoor<D = Declared> {
  declare(d: D): void;
  up(): Promise<Run>;
  preview(): Promise<Run>;
  refresh(): Promise<Run>;
  destroy(): Promise<Run>;
  /** Every file of the stack's backend, as text. */
  stateText(): string;
}

/** The flow control key and queue the program declares (the key must exist: keys are made by publishing). */
export const PROOF_KEY = "proof-key";
export const PROOF_QUEUE = "proof-orders";

function yamlProgram(pluginDir: string, d: Declared): string {
  return `name: mgmt-yaml-proof
runtime: yaml
plugins:
  providers:
    - name: mgmt
      path: ${pluginDir}
variables:
  paidAccount:
    fn::invoke:
      function: mgmt:index:getMessagingAccount
      arguments:
        region: eu-central-1
        type: paid
resources:
  docs:
    type: mgmt:index:SearchIndex
    properties:
      name: docs
      region: eu-west-1
      type: ${d.indexType}
  account:
    type: mgmt:index:MessagingAccount
    properties:
      accountId: \${paidAccount.id}
      prodPack: true
  messagingBudget:
    type: mgmt:index:MessagingBudget
    properties:
      accountId: \${paidAccount.id}
      budget: ${d.messagingBudget}
  databaseBudget:
    type: mgmt:index:DatabaseBudget
    properties:
      databaseId: ${d.databaseId}
      budget: ${d.databaseBudget}
  key:
    type: mgmt:index:FlowControlKey
    properties:
      region: eu-central-1
      key: ${PROOF_KEY}
      paused: ${d.paused}
  queue:
    type: mgmt:index:MessagingQueue
    properties:
      region: eu-central-1
      queue: ${PROOF_QUEUE}
      parallelism: 3
${d.found ? foundYaml(d.found) : ""}outputs:
  indexId: \${docs.id}
  tokens: \${docs.tokens}
`;
}

const foundYaml = (f: FoundIndex) => `  found:
    type: mgmt:index:SearchIndex
    properties:
      name: ${f.name}
      region: ${f.region}
      type: ${f.type}
      adopt: ${f.id}
    options:
      import: ${f.id}
`;

const stateOf = (files: string[]) => files.map((f) => readFileSync(f, "utf8")).join("\n");

/** YAML: a Pulumi.yaml in `dir`, driven by the Node Automation API (any project folder works there). */
export function yamlDoor(env: TestEnv, dir: string, token: string): Promise<FrontDoor> {
  return yamlProgramDoor(env, dir, token, yamlProgram);
}

/** A YAML front door to another program (`program` writes Pulumi.yaml from what is declared), the plugin installed in `dir`. */
export async function yamlProgramDoor<D>(
  env: TestEnv,
  dir: string,
  token: string,
  program: (pluginDir: string, d: D) => string,
): Promise<FrontDoor<D>> {
  const pluginDir = path.join(dir, ".plugin");
  installPlugin(pluginDir, PLUGIN_MAIN);
  let s: MgmtStack | undefined;
  const stack = async () =>
    (s ??= await env.stack({ workDir: dir, stackName: "yaml", mgmt: { messagingToken: token } }));
  const asRun = (changes: Record<string, number> | undefined, outputs: Run["outputs"] = {}): Run => ({
    changes: changes ?? {},
    outputs,
  });
  return {
    declare: (d) => writeFileSync(path.join(dir, "Pulumi.yaml"), program(pluginDir, d)),
    up: async () => {
      const r = await (await stack()).up();
      return asRun(r.summary.resourceChanges, r.outputs as Run["outputs"]);
    },
    preview: async () => asRun((await (await stack()).stack.preview()).changeSummary),
    refresh: async () => asRun((await (await stack()).refresh()).summary.resourceChanges),
    destroy: async () => {
      const r = await (await stack()).destroy();
      return { ...asRun(r.summary.resourceChanges), output: r.stdout };
    },
    stateText: () => stateOf(s?.backendDirFiles() ?? []),
  };
}

/** The compiled Go proof (test/go/proof): built once per test run, in the Go workspace the CLI was built in. */
function goProofBinary(dir: string): string {
  const out = path.join(dir, "proof");
  goBuild(path.resolve(__dirname, "../go/proof"), ["-o", out, "."]);
  return out;
}

/** Go: the generated Go SDK in an inline program of Go's Automation API, one operation per run of the binary. */
export function goDoor(env: TestEnv, dir: string, token: string): FrontDoor {
  return proofProgramDoor(env, dir, token, goProofBinary(dir), []);
}

let pythonEnv: string | undefined;

/**
 * The virtual environment with sdk/python and `pulumi` from PyPI (scripts/ensure-python.sh): made
 * once, then cached; the Python language host (scripts/pylanghost) is linked beside the tests' CLI.
 */
export function pythonProofEnv(): string {
  pythonEnv ??= execFileSync("bash", [path.resolve(__dirname, "../../scripts/ensure-python.sh"), pulumiCliDir()], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop()!;
  return pythonEnv;
}

/** Python: the generated Python SDK in an inline program of Python's Automation API, one operation per run. */
export function pythonDoor(env: TestEnv, dir: string, token: string): FrontDoor {
  return proofProgramDoor(env, dir, token, path.join(pythonProofEnv(), "bin", "python"), [
    path.resolve(__dirname, "../python/proof.py"),
  ]);
}

/**
 * A proof program of the Automation API (test/go/proof, test/python/proof.py): `command ...args op`
 * runs one operation; the environment carries what is declared, the stack's config, the backend,
 * the plugin's folder and the CLI (PROOF_*); its last line of stdout is the run's JSON report.
 */
function proofProgramDoor(env: TestEnv, dir: string, token: string, command: string, args: string[]): FrontDoor {
  const pluginDir = path.join(dir, ".plugin");
  installPlugin(pluginDir, PLUGIN_MAIN);
  const backend = testBackend();
  mkdirSync(backend.backendDir, { recursive: true });
  const config = Object.fromEntries(
    Object.entries(mgmtConfigMap({ ...env.mgmt, messagingToken: token })).map(([k, v]) => [
      k,
      { value: v.value, secret: v.secret ?? false },
    ]),
  );
  let declared: Declared | undefined;
  const run = async (op: string): Promise<Run> => {
    try {
      const { stdout } = await promisify(execFile)(command, [...args, op], {
        cwd: dir,
        maxBuffer: 64 * 1024 * 1024,
        env: {
          ...process.env,
          PATH: `${pulumiCliDir()}${path.delimiter}${process.env.PATH ?? ""}`,
          PULUMI_CONFIG_PASSPHRASE: backend.passphrase,
          PULUMI_SKIP_UPDATE_CHECK: "true",
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
          PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
          PROOF_DECLARED: JSON.stringify(declared),
          PROOF_CONFIG: JSON.stringify(config),
          PROOF_BACKEND: `file://${backend.backendDir}`,
          PROOF_PLUGIN_DIR: pluginDir,
          PROOF_CLI_ROOT: path.dirname(pulumiCliDir()),
        },
      });
      const report = JSON.parse(stdout.trim().split("\n").pop()!) as {
        changes: Run["changes"];
        outputs?: Run["outputs"];
        output?: string;
      };
      return { changes: report.changes, outputs: report.outputs ?? {}, output: report.output };
    } catch (err) {
      throw new Error(String((err as { stderr?: string }).stderr ?? err));
    }
  };
  return {
    declare: (d) => (declared = d),
    up: () => run("up"),
    preview: () => run("preview"),
    refresh: () => run("refresh"),
    destroy: () => run("destroy"),
    stateText: () => {
      const files = execFileSync("find", [backend.backendDir, "-type", "f"], { encoding: "utf8" }).trim().split("\n");
      return stateOf(files.filter(Boolean));
    },
  };
}
