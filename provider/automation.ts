/**
 * What every program that drives stacks from code needs, in one call: the Pulumi CLI, an offline
 * file:// backend, a passphrase, the `mgmt:*` configuration (secrets as secrets), and progress
 * streaming. Plain `@pulumi/pulumi/automation` stays fully available; this only removes
 * boilerplate. Tests, the main job, the examples and the benchmark all use it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  LocalWorkspace,
  PulumiCommand,
  type ConfigMap,
  type LocalWorkspaceOptions,
  type PulumiFn,
  type Stack,
} from "@pulumi/pulumi/automation";
import { MgmtClient } from "./api/client";
import { resolveSettings, SETTINGS_KEYS, type SettingName } from "./config";

/** The root of the installed pulumi-mgmt package (this repository when developing). */
export const PACKAGE_ROOT = packageRoot(__dirname);

function packageRoot(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "pulumi-mgmt") return dir;
  }
  throw new Error(`cannot find the pulumi-mgmt package above ${from}`);
}

/**
 * The directory holding `pulumi`, `pulumi-language-nodejs` and `pulumi-resource-pulumi-nodejs`:
 * PULUMI_MGMT_CLI_DIR, else what `npm run setup` recorded, else scripts/ensure-pulumi.sh (which
 * uses a `pulumi` on PATH, a cached build, or builds one).
 */
export function pulumiCliDir(): string {
  if (process.env.PULUMI_MGMT_CLI_DIR) return process.env.PULUMI_MGMT_CLI_DIR;
  const recorded = path.join(PACKAGE_ROOT, "node_modules/.cache/pulumi-mgmt/cli-dir");
  if (existsSync(recorded)) {
    const dir = readFileSync(recorded, "utf8").trim();
    if (existsSync(path.join(dir, "pulumi"))) return dir;
  }
  const out = execFileSync("bash", [path.join(PACKAGE_ROOT, "scripts/ensure-pulumi.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  return out.trim().split("\n").pop()!;
}

let command: Promise<PulumiCommand> | undefined;
export function pulumiCommand(): Promise<PulumiCommand> {
  command ??= PulumiCommand.get({ root: path.dirname(pulumiCliDir()) });
  return command;
}

/** The environment that keeps every Pulumi run offline and non-interactive. */
export function offlineEnv(backendDir: string, passphrase: string): Record<string, string> {
  const cli = pulumiCliDir();
  return {
    PULUMI_BACKEND_URL: `file://${backendDir}`,
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    // The dynamic provider plugin and the language host are found beside `pulumi`.
    PATH: `${cli}${path.delimiter}${process.env.PATH ?? ""}`,
  };
}

export type MgmtConfig = Partial<Record<SettingName, string | number>>;

/** `mgmt:*` config as the Automation API wants it; password and tokens marked secret. */
export function mgmtConfigMap(settings: MgmtConfig): ConfigMap {
  const config: ConfigMap = {};
  for (const [name, value] of Object.entries(settings) as [SettingName, string | number | undefined][]) {
    if (value === undefined) continue;
    const keys = SETTINGS_KEYS[name];
    config[keys.config] = { value: String(value), secret: "secret" in keys && keys.secret };
  }
  return config;
}

export interface StackOptions {
  stackName?: string;
  projectName?: string;
  /** An inline program; when absent, `workDir` must hold a Pulumi.yaml program. */
  program?: PulumiFn;
  /**
   * The folder with the project's Pulumi.yaml (and, for an inline program, its settings). Its
   * node_modules must resolve `@pulumi/pulumi` and `pulumi-mgmt`: the dynamic provider runs there.
   */
  workDir?: string;
  /** Where the file:// backend keeps state; a new temporary folder by default. */
  backendDir?: string;
  passphrase?: string;
  mgmt?: MgmtConfig;
  config?: ConfigMap;
  envVars?: Record<string, string>;
}

export interface MgmtStack {
  stack: Stack;
  backendDir: string;
  /** All of the backend's files, for checks such as "no secret in plain text". */
  backendDirFiles(): string[];
}

/**
 * Creates or selects a stack on an offline file:// backend.
 *
 * For inline programs the project's `main` is the folder whose node_modules resolves
 * `@pulumi/pulumi` and `pulumi-mgmt` (default: the current directory if it has them, else this
 * package's root): the dynamic provider host is started there and loads the provider code by
 * package name.
 */
export async function mgmtStack(options: StackOptions): Promise<MgmtStack> {
  const backendDir = options.backendDir ?? path.join(tmpdir(), `pulumi-mgmt-state-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(backendDir, { recursive: true });
  const passphrase = options.passphrase ?? process.env.PULUMI_CONFIG_PASSPHRASE ?? "pulumi-mgmt-local";
  const stackName = options.stackName ?? "dev";
  const envVars = { ...offlineEnv(backendDir, passphrase), ...options.envVars };
  const wsOptions: LocalWorkspaceOptions = { envVars, pulumiCommand: await pulumiCommand() };

  let stack: Stack;
  if (options.program && options.workDir) {
    // An inline program whose project settings live in workDir's Pulumi.yaml.
    const projectName = options.projectName ?? "pulumi-mgmt-inline";
    stack = await LocalWorkspace.createOrSelectStack({ stackName, projectName, program: options.program }, { ...wsOptions, workDir: options.workDir });
  } else if (options.program) {
    const projectName = options.projectName ?? "pulumi-mgmt-inline";
    stack = await LocalWorkspace.createOrSelectStack(
      { stackName, projectName, program: options.program },
      {
        ...wsOptions,
        projectSettings: { name: projectName, runtime: "nodejs", main: providerHostDir(), backend: { url: `file://${backendDir}` } },
      },
    );
  } else {
    if (!options.workDir) throw new Error("mgmtStack needs either program or workDir");
    stack = await LocalWorkspace.createOrSelectStack({ stackName, workDir: options.workDir }, wsOptions);
  }
  const config = { ...mgmtConfigMap(options.mgmt ?? {}), ...options.config };
  if (Object.keys(config).length > 0) await stack.setAllConfig(config);
  return {
    stack,
    backendDir,
    backendDirFiles: () => listFiles(backendDir),
  };
}

function providerHostDir(): string {
  const cwd = process.cwd();
  return existsSync(path.join(cwd, "node_modules/pulumi-mgmt")) ? cwd : PACKAGE_ROOT;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(full));
    else out.push(full);
  }
  return out;
}

const OUR_TYPES = "pulumi-nodejs:dynamic/mgmt:";
const SEARCH_INDEX_TYPE = `${OUR_TYPES}SearchIndex`;

interface PendingOperation {
  type: string;
  resource: { urn: string; type: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> };
}

export interface RecoveryReport {
  /** Search indexes the interrupted run created: now in the stack under their id. */
  imported: { urn: string; id: string; name: string }[];
  /** Creates that never happened (or whose repeat is harmless): dropped from the pending list. */
  cleared: string[];
}

/**
 * Brings a stack back after an `up` that was killed (or lost its machine) while creating:
 * Pulumi recorded each create it had started as a "pending create", with the inputs, so with
 * the name the index was to get. Each pending SearchIndex is looked up by that name with the
 * stack's own credentials; one that exists becomes a resource of the stack under its id, and a
 * refresh reads its outputs; one that does not is cleared. (`pulumi refresh
 * --import-pending-creates URN ID` means to do the same, but the 3.248 engine drops the marked
 * operation without importing it.) Pending budgets and flow control actions are cleared:
 * creating them again sets the same values and cannot duplicate anything. Pending operations of
 * other providers are left as they are.
 *
 * Run `pulumi cancel` first if the killed run left the stack locked. Then `up` converges, with
 * no duplicate: never `--clear-pending-creates` on its own, which forgets indexes that exist.
 */
export async function recoverPendingCreates(stack: Stack): Promise<RecoveryReport> {
  const exported = await stack.exportStack();
  const pending = ((exported.deployment.pending_operations ?? []) as PendingOperation[]).filter(
    (op) => op.type === "creating" && op.resource.type.startsWith(OUR_TYPES),
  );
  const report: RecoveryReport = { imported: [], cleared: [] };
  if (pending.length === 0) return report;

  const config = await stack.getAllConfig();
  const client = new MgmtClient(resolveSettings((key) => config[key]?.value, { ...process.env, ...stack.workspace.envVars }));
  const existing = pending.some((op) => op.resource.type === SEARCH_INDEX_TYPE) ? await client.listSearchIndexes() : [];

  const keep: PendingOperation[] = [];
  const resources = exported.deployment.resources as PendingOperation["resource"][];
  for (const op of exported.deployment.pending_operations as PendingOperation[]) {
    if (!pending.includes(op)) {
      keep.push(op);
      continue;
    }
    const name = op.resource.inputs?.name;
    const found = op.resource.type === SEARCH_INDEX_TYPE && typeof name === "string" ? existing.find((i) => i.name === name) : undefined;
    if (found) {
      // The dynamic provider host finds its code in the outputs' __provider, which a create that
      // never answered has not written: the recorded inputs carry it (and name and region) until
      // the refresh below reads the real outputs. Appended last, after its parent and provider.
      resources.push({ ...op.resource, id: found.id, outputs: { ...op.resource.inputs } });
      report.imported.push({ urn: op.resource.urn, id: found.id, name: found.name });
    } else {
      report.cleared.push(op.resource.urn);
    }
  }
  exported.deployment.pending_operations = keep;
  await stack.importStack(exported);
  // The refresh reads each imported index: its outputs become what the service reports.
  if (report.imported.length > 0) await stack.refresh();
  return report;
}
