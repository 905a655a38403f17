/**
 * The stack helper: a stack on the backend and with the secrets provider the user chose, with
 * the `mgmt:*` configuration set (secrets as secrets), for an inline program or a project folder.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import {
  LocalWorkspace,
  Stack,
  type ConfigMap,
  type DestroyOptions,
  type LocalWorkspaceOptions,
  type PulumiFn,
  type RefreshOptions,
  type UpOptions,
} from "@pulumi/pulumi/automation";
import { SETTINGS_KEYS, type SettingName } from "../config";
import { boundPulumiCommand } from "./boundCli";
import { cliEnv, PACKAGE_ROOT, pulumiCliDir, pulumiCommand } from "./cli";
import { isolateEngineConnections } from "./engineConnections";
import { selectOrCreateStack } from "./sdkAdapter";
import { compareVersions } from "./versions";
import {
  leanDestroy,
  leanRefresh,
  leanUp,
  type LeanDestroyResult,
  type LeanRefreshResult,
  type LeanUpResult,
} from "./leanOps";
import { UserError } from "../userError";

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

/**
 * The same settings as the environment variables the provider reads when the stack's config has
 * none (config.ts `resolveSettings`): what a run that does not record its settings in the stack
 * passes to its CLI (the fleet's tenant runs, fleet/converge.ts).
 */
export function mgmtEnv(settings: MgmtConfig): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(settings) as [SettingName, string | number | undefined][])
    if (value !== undefined) env[SETTINGS_KEYS[name].env] = String(value);
  return env;
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
  /**
   * Each Pulumi CLI dies with this process (Linux) and records its pid (boundCli.ts): what a
   * fleet run needs, so that nothing of it outlives its worker. Default false.
   */
  boundCli?: boolean;
  /**
   * The caller knows the stack exists on the backend and this work folder has run it (the fleet's
   * marker, fleet/knownStacks.ts): no CLI command runs to select it, as every operation names its
   * stack. If it was removed meanwhile, the operation fails with the SDK's StackNotFoundError.
   */
  known?: boolean;
}

export interface MgmtStack {
  stack: Stack;
  /** The backend the stack lives in. */
  backendUrl: string;
  /** The folder of a file:// backend; undefined for other backends. */
  backendDir?: string;
  /** All of a file:// backend's files, for checks such as "no secret in plain text". */
  backendDirFiles(): string[];
  /**
   * `stack.up`, `stack.refresh` and `stack.destroy` without the CLI commands the SDK runs after
   * them (leanOps.ts): the summary is the engine's, without the history entry's version and message.
   */
  up(opts?: UpOptions): Promise<LeanUpResult>;
  refresh(opts?: RefreshOptions): Promise<LeanRefreshResult>;
  destroy(opts?: DestroyOptions): Promise<LeanDestroyResult>;
}

/** No secrets provider was chosen: the message says what to set. */
export class SecretsProviderError extends UserError {
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
  const envVars: Record<string, string> = {
    ...cliEnv(options.offline ?? false, options.envVars),
    ...options.envVars,
    ...secretsEnv(options, stackName, projectDir),
  };
  const wsOptions: LocalWorkspaceOptions = {
    envVars,
    pulumiCommand: await (options.boundCli ? boundPulumiCommand() : pulumiCommand()),
    ...(options.secretsProvider ? { secretsProvider: options.secretsProvider } : {}),
  };

  // The backend: explicit, else the environment, else the project's own, else project-local.
  let backendUrl =
    options.backendUrl ??
    (options.backendDir ? fileUrl(options.backendDir) : undefined) ??
    options.envVars?.PULUMI_BACKEND_URL ??
    process.env.PULUMI_BACKEND_URL;
  if (!backendUrl && !options.program && options.workDir) {
    const settings = await (
      await LocalWorkspace.create({ workDir: options.workDir, pulumiCommand: wsOptions.pulumiCommand })
    ).projectSettings();
    backendUrl = settings.backend?.url;
  }
  backendUrl ??= fileUrl(path.join(projectDir, ".pulumi-state"));
  checkCliHasBackend(backendUrl, wsOptions.pulumiCommand!);
  const backendDir = backendUrl.startsWith("file://") ? backendUrl.slice("file://".length) : undefined;
  if (backendDir) mkdirSync(backendDir, { recursive: true });
  envVars.PULUMI_BACKEND_URL = backendUrl;

  let workspace: LocalWorkspace;
  if (options.program) {
    // An inline program: in workDir with its Pulumi.yaml if it has one, else one written there
    // (or in a temporary folder of the SDK's).
    const projectName = options.projectName ?? "pulumi-mgmt-inline";
    const hasProject =
      options.workDir !== undefined &&
      ["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"].some((f) => existsSync(path.join(options.workDir!, f)));
    workspace = await LocalWorkspace.create({
      ...wsOptions,
      program: options.program,
      ...(options.workDir ? { workDir: options.workDir } : {}),
      ...(hasProject
        ? {}
        : {
            projectSettings: {
              name: projectName,
              runtime: "nodejs" as const,
              main: providerHostDir(),
              backend: { url: backendUrlForDisk(backendUrl) },
            },
          }),
    });
  } else {
    if (!options.workDir)
      throw new UserError("mgmtStack needs either program (an inline program) or workDir (a project folder): give one");
    workspace = await LocalWorkspace.create({ ...wsOptions, workDir: options.workDir });
  }
  // One CLI command selects the stack or creates it (sdkAdapter.ts), where the SDK's createOrSelect
  // runs two for a new stack; none when the caller knows it.
  const sdk = { select: workspace.selectStack.bind(workspace), create: workspace.createStack.bind(workspace) };
  workspace.selectStack = options.known
    ? async () => undefined
    : (name) => selectOrCreateStack(workspace, name, options.secretsProvider, sdk);
  const stack = await Stack.select(stackName, workspace);
  const config = { ...mgmtConfigMap(options.mgmt ?? {}), ...options.config };
  if (Object.keys(config).length > 0) {
    await stack.setAllConfig(config).catch((err: unknown) => {
      // The failed command's text holds the values given with --secret: only the engine's reason goes on.
      const reason = engineReason(err);
      const hint = /incorrect passphrase/.test(reason)
        ? ` (stack "${stackName}" was created with another passphrase: use that one, or another stack or backend)`
        : "";
      throw new UserError(`could not set the config of stack "${stackName}": ${reason}${hint}`);
    });
  }
  return {
    stack,
    backendUrl,
    backendDir,
    backendDirFiles: () => (backendDir ? listFiles(backendDir) : []),
    up: (opts) => leanUp(stack, opts),
    refresh: (opts) => leanRefresh(stack, opts),
    destroy: (opts) => leanDestroy(stack, opts),
  };
}

/** The first Pulumi CLI with a postgres:// backend (checked in its module sources: absent in 3.175.0). */
export const POSTGRES_BACKEND_SINCE = "3.176.0";

/**
 * A postgres:// backend with a CLI older than POSTGRES_BACKEND_SINCE fails before any command
 * runs, in one line: such a CLI takes the address for a Pulumi Cloud one and asks for a login
 * (`PULUMI_ACCESS_TOKEN must be set for login`), which says nothing of the cause.
 */
export function checkCliHasBackend(backendUrl: string, command: { version: unknown }): void {
  if (!/^postgres(ql)?:\/\//i.test(backendUrl) || command.version === null || command.version === undefined) return;
  const version = String(command.version);
  if (compareVersions(version, POSTGRES_BACKEND_SINCE) >= 0) return;
  throw new UserError(
    `the Pulumi CLI ${path.join(pulumiCliDir(), "pulumi")} is v${version}, which has no postgres:// backend (it came in ${POSTGRES_BACKEND_SINCE}): ` +
      `put a newer pulumi first on PATH, or set PULUMI_MGMT_CLI_DIR to the folder of one (PULUMI_MGMT_CLI_VERSION=${POSTGRES_BACKEND_SINCE} makes scripts/ensure-pulumi.sh build one)`,
  );
}

/**
 * The backend's address as an inline program's Pulumi.yaml records it, for a `pulumi` command run
 * by hand in that folder: without a password (a postgres:// URL's, in its user part or as a
 * parameter), which would lie on disk in plain text, readable by anyone who can read the folder.
 * The CLIs this package starts get the whole URL in their environment (PULUMI_BACKEND_URL, which
 * wins over the file); a hand run gives the password as for any PostgreSQL client (PGPASSWORD,
 * ~/.pgpass) or sets PULUMI_BACKEND_URL itself.
 */
export function backendUrlForDisk(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const params = [...u.searchParams.keys()].filter((k) => /^(password|passwd|pwd)$/i.test(k));
  if (!u.password && params.length === 0) return url;
  u.password = "";
  for (const k of params) u.searchParams.delete(k);
  return u.toString();
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
  const recorded = existsSync(stackFile)
    ? /^secretsprovider:\s*(\S+)/m.exec(readFileSync(stackFile, "utf8"))?.[1]
    : undefined;
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

/**
 * The engine's own reason from a failed pulumi command: its `error: ...` lines, never the command
 * line, which carries config values given with `--secret` (config set-all).
 */
export function engineReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const lines = [...new Set([...message.matchAll(/^error: (.+)$/gm)].map((m) => m[1]))];
  return lines.length > 0 ? lines.join("; ") : message.split("\n")[0];
}
