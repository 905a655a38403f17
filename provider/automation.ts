/**
 * What every program that drives stacks from code needs, in one call: the Pulumi CLI, the
 * backend and secrets provider the user chose, the `mgmt:*` configuration (secrets as secrets),
 * and recovery after an interrupted run. Plain `@pulumi/pulumi/automation` stays fully available; this only removes
 * boilerplate. Tests, the main job, the examples and the benchmark all use it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
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
import type { SearchIndexRecord } from "./api/schemas";
import { keyId } from "./resources/flowControlKey";
import { queueId } from "./resources/messagingQueue";
import { resolveSettings, SETTINGS_KEYS, type SettingName } from "./config";
import { isolateEngineConnections } from "./engineConnections";

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
let cliDir: string | undefined;
export function pulumiCliDir(): string {
  if (process.env.PULUMI_MGMT_CLI_DIR) return process.env.PULUMI_MGMT_CLI_DIR;
  cliDir ??= findCliDir();
  return cliDir;
}

function findCliDir(): string {
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

/**
 * The environment of every Pulumi command the helper runs: the CLI's folder on PATH (the dynamic
 * provider plugin and the language host are found beside `pulumi`), and, when `offline`, no
 * update check and no plugin download (what the emulator-backed runs want; opt-in elsewhere).
 */
export function cliEnv(offline = false): Record<string, string> {
  return {
    PATH: `${pulumiCliDir()}${path.delimiter}${process.env.PATH ?? ""}`,
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    ...(offline ? { PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" } : {}),
  };
}

const fileUrl = (dir: string) => `file://${path.resolve(dir)}`;

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
   * Each stack driven concurrently needs its own: Pulumi keeps the selected stack in a file there.
   */
  workDir?: string;
  /**
   * Where state is kept: any backend URL Pulumi takes (`file://`, `postgres://`, `s3://`,
   * `https://api.pulumi.com`, ...). Default: PULUMI_BACKEND_URL, else the project's
   * `backend.url`, else `file://<project folder>/.pulumi-state` (durable, never a temporary one).
   */
  backendUrl?: string;
  /** Shorthand for `backendUrl: file://<backendDir>`; the folder is created. */
  backendDir?: string;
  /** The secrets provider of a new stack: `awskms://...`, `gcpkms://...`, `azurekeyvault://...`, `hashivault://...` or `passphrase`. */
  secretsProvider?: string;
  /** The passphrase of the passphrase provider. Default: PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE. */
  passphrase?: string;
  /** No update check, no plugin download. Default false; the emulator-backed runs turn it on. */
  offline?: boolean;
  mgmt?: MgmtConfig;
  config?: ConfigMap;
  envVars?: Record<string, string>;
}

export interface MgmtStack {
  stack: Stack;
  /** The backend the stack lives in. */
  backendUrl: string;
  /** The folder of a file:// backend; undefined for other backends. */
  backendDir?: string;
  /** All of a file:// backend's files, for checks such as "no secret in plain text". */
  backendDirFiles(): string[];
}

/** No secrets provider was chosen: the message says what to set. */
export class SecretsProviderError extends Error {
  override readonly name = "SecretsProviderError";
}

/**
 * Creates or selects a stack, on the backend and with the secrets provider the user chose
 * (see StackOptions for the order). Nothing is decided for the user that would lose state (a
 * temporary backend) or weaken it (a passphrase written in code).
 *
 * For inline programs the project's `main` is the folder whose node_modules resolves
 * `@pulumi/pulumi` and `pulumi-mgmt` (default: the current directory if it has them, else this
 * package's root): the dynamic provider host is started there and loads the provider code by
 * package name.
 */
export async function mgmtStack(options: StackOptions): Promise<MgmtStack> {
  // Inline programs run in this process; without this, one run's stale connection can make a later
  // run's program silently declare nothing (engineConnections.ts).
  if (options.program) isolateEngineConnections();
  const stackName = options.stackName ?? "dev";
  const projectDir = options.workDir ?? process.cwd();
  const envVars: Record<string, string> = { ...cliEnv(options.offline ?? false), ...options.envVars, ...secretsEnv(options, stackName, projectDir) };
  const wsOptions: LocalWorkspaceOptions = { envVars, pulumiCommand: await pulumiCommand(), ...(options.secretsProvider ? { secretsProvider: options.secretsProvider } : {}) };

  // The backend: explicit, else the environment, else the project's own, else project-local.
  let backendUrl = options.backendUrl ?? (options.backendDir ? fileUrl(options.backendDir) : undefined) ?? options.envVars?.PULUMI_BACKEND_URL ?? process.env.PULUMI_BACKEND_URL;
  if (!backendUrl && !options.program && options.workDir) {
    const settings = await (await LocalWorkspace.create({ workDir: options.workDir, pulumiCommand: wsOptions.pulumiCommand })).projectSettings();
    backendUrl = settings.backend?.url;
  }
  backendUrl ??= fileUrl(path.join(projectDir, ".pulumi-state"));
  const backendDir = backendUrl.startsWith("file://") ? backendUrl.slice("file://".length) : undefined;
  if (backendDir) mkdirSync(backendDir, { recursive: true });
  envVars.PULUMI_BACKEND_URL = backendUrl;

  let stack: Stack;
  if (options.program && options.workDir) {
    // An inline program in workDir: its Pulumi.yaml if it has one, else one written there.
    const projectName = options.projectName ?? "pulumi-mgmt-inline";
    const hasProject = ["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"].some((f) => existsSync(path.join(options.workDir!, f)));
    const projectSettings = hasProject ? undefined : { name: projectName, runtime: "nodejs" as const, main: providerHostDir(), backend: { url: backendUrl } };
    stack = await LocalWorkspace.createOrSelectStack({ stackName, projectName, program: options.program }, { ...wsOptions, workDir: options.workDir, ...(projectSettings ? { projectSettings } : {}) });
  } else if (options.program) {
    const projectName = options.projectName ?? "pulumi-mgmt-inline";
    stack = await LocalWorkspace.createOrSelectStack(
      { stackName, projectName, program: options.program },
      { ...wsOptions, projectSettings: { name: projectName, runtime: "nodejs", main: providerHostDir(), backend: { url: backendUrl } } },
    );
  } else {
    if (!options.workDir) throw new Error("mgmtStack needs either program or workDir");
    stack = await LocalWorkspace.createOrSelectStack({ stackName, workDir: options.workDir }, wsOptions);
  }
  const config = { ...mgmtConfigMap(options.mgmt ?? {}), ...options.config };
  if (Object.keys(config).length > 0) {
    await stack.setAllConfig(config).catch((err: unknown) => {
      // The failed command's text holds the values given with --secret: only the engine's reason goes on.
      const reason = engineReason(err);
      const hint = /incorrect passphrase/.test(reason) ? ` (stack "${stackName}" was created with another passphrase: use that one, or another stack or backend)` : "";
      throw new Error(`could not set the config of stack "${stackName}": ${reason}${hint}`);
    });
  }
  return {
    stack,
    backendUrl,
    backendDir,
    backendDirFiles: () => (backendDir ? listFiles(backendDir) : []),
  };
}

/**
 * The passphrase for the CLI, if the user gave one; nothing if the environment or another
 * secrets provider covers it; otherwise an error that says what to set.
 */
function secretsEnv(options: StackOptions, stackName: string, projectDir: string): Record<string, string> {
  if (options.passphrase !== undefined) return { PULUMI_CONFIG_PASSPHRASE: options.passphrase };
  if (options.secretsProvider && options.secretsProvider !== "passphrase") return {};
  const env = { ...process.env, ...options.envVars };
  if (env.PULUMI_CONFIG_PASSPHRASE !== undefined || env.PULUMI_CONFIG_PASSPHRASE_FILE) return {};
  // A stack created earlier with a cloud secrets provider says so in its settings file.
  const stackFile = path.join(projectDir, `Pulumi.${stackName}.yaml`);
  const recorded = existsSync(stackFile) ? /^secretsprovider:\s*(\S+)/m.exec(readFileSync(stackFile, "utf8"))?.[1] : undefined;
  if (recorded && !recorded.startsWith("passphrase")) return {};
  throw new SecretsProviderError(
    `stack "${stackName}" needs a secrets provider to encrypt its secrets (the password, tokens): ` +
      `set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE), or pass { passphrase } or ` +
      `{ secretsProvider: "awskms://..." | "gcpkms://..." | "azurekeyvault://..." | "hashivault://..." } to mgmtStack. ` +
      `pulumi-mgmt has no default passphrase: one written in code would let anyone read the stack's secrets.`,
  );
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

/**
 * Resources that take over an object rather than create one, by id: `check` recorded in their
 * pending create how it found the object (resources/before.ts), which is what proves what the
 * interrupted run changed.
 */
const TAKEN_OVER: Record<string, (inputs: Record<string, string>) => string> = {
  [`${OUR_TYPES}FlowControlKey`]: (i) => keyId({ region: i.region, key: i.key }),
  [`${OUR_TYPES}MessagingQueue`]: (i) => queueId({ region: i.region, queue: i.queue }),
  [`${OUR_TYPES}MessagingBudget`]: (i) => i.accountId,
};

interface PendingOperation {
  type: string;
  resource: { urn: string; type: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> };
}

export interface RecoveryReport {
  /** Indexes the interrupted run created, and keys, queues and budgets it took over: now in the stack under their id. */
  imported: { urn: string; id: string; name: string }[];
  /**
   * Creates that never happened, and takeovers of keys, queues and budgets without a recorded
   * "before" (a token unknown at check): dropped from the pending list.
   */
  cleared: string[];
  /**
   * Indexes that exist under a name the user chose, which nothing proves the interrupted run
   * created (it may be someone else's): left out of the stack and untouched. The next `up`
   * refuses the taken name and says how to adopt it.
   */
  unproven: { urn: string; id: string; name: string }[];
}

/**
 * The index an interrupted create made, found only with proof: a name drawn at random for this
 * resource (autoName) is nobody else's, and `adopt` names the index the user asked to manage. An
 * index under a name the user chose may be someone else's ("unproven").
 */
function provenIndex(inputs: Record<string, unknown>, existing: SearchIndexRecord[]): SearchIndexRecord | "unproven" | undefined {
  const { name, autoName, adopt } = inputs;
  if (typeof adopt === "string") return existing.find((i) => i.id === adopt) ?? existing.find((i) => i.name === adopt || i.name === name);
  const found = existing.find((i) => i.name === name);
  if (!found) return undefined;
  return typeof autoName === "string" && autoName === name ? found : "unproven";
}

/**
 * Brings a stack back after an `up` that was killed (or lost its machine) while creating:
 * Pulumi recorded each create it had started as a "pending create", with the inputs, so with
 * the name the index was to get. Each pending SearchIndex is looked up by that name with the
 * stack's own credentials; one that exists and is proven this stack's (provenIndex) becomes a
 * resource of the stack under its id, and a refresh reads its outputs; one that does not exist is
 * cleared; one under a name the user chose is reported and left alone. (`pulumi refresh
 * --import-pending-creates URN ID` means to do the same, but the 3.248 engine drops the marked
 * operation without importing it.) Pending keys, queues and budgets are imported with how `check`
 * found them, and the refresh works out what the interrupted run changed, so destroy gives it
 * back; without that record they are cleared, and what the run may have changed is left. Pending
 * operations of other providers are left as they are.
 *
 * Run `pulumi cancel` first if the killed run left the stack locked. Then `up` converges, with
 * no duplicate: never `--clear-pending-creates` on its own, which forgets indexes that exist.
 */
export async function recoverPendingCreates(stack: Stack): Promise<RecoveryReport> {
  const exported = await stack.exportStack();
  const pending = ((exported.deployment.pending_operations ?? []) as PendingOperation[]).filter(
    (op) => op.type === "creating" && op.resource.type.startsWith(OUR_TYPES),
  );
  const report: RecoveryReport = { imported: [], cleared: [], unproven: [] };
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
    const takenOver = TAKEN_OVER[op.resource.type];
    const inputs = op.resource.inputs ?? {};
    if (takenOver && inputs.before !== undefined) {
      // Imported with how the object was found: the refresh below works out what the run changed.
      const id = takenOver(inputs as Record<string, string>);
      resources.push({ ...op.resource, id, outputs: { ...inputs } });
      report.imported.push({ urn: op.resource.urn, id, name: String(inputs.key ?? inputs.queue ?? inputs.accountId) });
      continue;
    }
    const found = op.resource.type === SEARCH_INDEX_TYPE ? provenIndex(inputs, existing) : undefined;
    if (found === "unproven") {
      const name = String(inputs.name);
      report.unproven.push({ urn: op.resource.urn, id: existing.find((i) => i.name === name)!.id, name });
    } else if (found) {
      // The dynamic provider host finds its code in the outputs' __provider, which a create that
      // never answered has not written: the recorded inputs carry it (and name and region) until
      // the refresh below reads the real outputs. Appended last, after its parent and provider.
      resources.push({ ...op.resource, id: found.id, outputs: { ...inputs } });
      report.imported.push({ urn: op.resource.urn, id: found.id, name: found.name });
    } else {
      report.cleared.push(op.resource.urn);
    }
  }
  exported.deployment.pending_operations = keep;
  await stack.importStack(exported);
  // The refresh reads each imported resource: its outputs become what the service reports.
  if (report.imported.length > 0) await stack.refresh();
  return report;
}

/** For drivers that build their own LocalWorkspace with inline programs: see engineConnections.ts. */
export { isolateEngineConnections } from "./engineConnections";

/**
 * The engine's own reason from a failed pulumi command: its `error: ...` lines, never the command
 * line, which carries config values given with `--secret` (config set-all).
 */
export function engineReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const lines = [...new Set([...message.matchAll(/^error: (.+)$/gm)].map((m) => m[1]))];
  return lines.length > 0 ? lines.join("; ") : message.split("\n")[0];
}
