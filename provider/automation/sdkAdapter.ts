/**
 * Everything pulumi-mgmt relies on that the Pulumi SDK does not publish, in one place. Each use
 * names the SDK code it relies on; `sdkAdapterProblems()` checks that it is still there and
 * behaves so. test/unit/sdkAdapter.test.ts runs it on the installed SDK, and every leg of
 * test/matrix/compat.test.ts on that leg's SDK, so a version that moves them fails a test instead
 * of silently losing the saving (leanOps.ts) or the isolation (engineConnections.ts).
 */
import { tmpdir } from "node:os";
import {
  Stack,
  StackNotFoundError,
  type DestroyOptions,
  type LocalWorkspace,
  type DestroyResult,
  type OutputMap,
  type RefreshOptions,
  type RefreshResult,
  type UpOptions,
  type UpResult,
} from "@pulumi/pulumi/automation";
import { constructAdapterProblems } from "../plugin/constructAdapter";
import { UserError } from "../userError";
import { SECRET_SIG, SIG_KEY, UNKNOWN_VALUE } from "../wireSentinels";
import { compareVersions } from "./versions";

/** What the SDK's `up`, `refresh` and `destroy` read from the stack once their CLI command has succeeded. */
export interface AfterCommand<Summary> {
  /** Read by `up` only: the SDK runs `pulumi stack output` twice for it. */
  outputs(): Promise<OutputMap>;
  /** Read by all three: the SDK runs `pulumi stack history` for it. */
  summary(showSecrets?: boolean): Promise<Summary>;
}

type Without<R extends { summary: unknown }, Summary> = Omit<R, "summary"> & { summary: Summary };

/**
 * The SDK's own method (every option, the inline program's server, the event log, the error
 * handling stay the SDK's) called on a view of the stack whose `outputs()` and `info()` answer
 * from `after` instead of a CLI command each.
 *
 * Relies on (not published): the method reads its outputs with `this.outputs()` and its summary
 * with `this.info()`, after its command and nothing else. Should an SDK stop doing so, the result
 * is still right (the SDK's own summary and outputs, from its commands): only the saving is lost,
 * and sdkAdapterProblems() says so.
 */
export function upWithoutFollowUps<S>(
  stack: Stack,
  opts: UpOptions,
  after: AfterCommand<S>,
): Promise<Without<UpResult, S | UpResult["summary"]>> {
  return withoutFollowUps(stack, after, (view) => stack.up.call(view, opts));
}

export function refreshWithoutFollowUps<S>(
  stack: Stack,
  opts: RefreshOptions,
  after: AfterCommand<S>,
): Promise<Without<RefreshResult, S | RefreshResult["summary"]>> {
  return withoutFollowUps(stack, after, (view) => stack.refresh.call(view, opts));
}

export function destroyWithoutFollowUps<S>(
  stack: Stack,
  opts: DestroyOptions,
  after: AfterCommand<S>,
): Promise<Without<DestroyResult, S | DestroyResult["summary"]>> {
  return withoutFollowUps(stack, after, (view) => stack.destroy.call(view, opts));
}

async function withoutFollowUps<R extends { summary: unknown }, S>(
  stack: Stack,
  after: AfterCommand<S>,
  run: (view: Stack) => Promise<R>,
): Promise<Without<R, S | R["summary"]>> {
  let answered: { summary: S } | undefined;
  const view: Stack = Object.create(stack, {
    outputs: { value: () => after.outputs() },
    info: {
      value: async (showSecrets?: boolean) => {
        answered = { summary: await after.summary(showSecrets) };
        return answered.summary;
      },
    },
  });
  const result = await run(view);
  // The SDK put what `info()` answered into its result; when it did not ask, its own summary stands.
  return { ...result, summary: answered ? answered.summary : result.summary };
}

/** A PulumiCommand's `run`, which the SDK marks internal. */
type RunsCommands = { run(args: string[], cwd: string, env: Record<string, string>): Promise<unknown> };
const runsCommands = (command: unknown): command is RunsCommands =>
  isRecord(command) && typeof command.run === "function";

/**
 * Selects a stack, creating it if it does not exist, in one CLI command (`pulumi stack select
 * --create`), where the SDK's createOrSelect runs two for a new stack (`stack select`, which fails,
 * then `stack init`): each CLI start costs about 0.4 s of CPU before it does anything.
 *
 * Relies on (not published): `PulumiCommand.run(args, cwd, env)`, with which the SDK's
 * LocalWorkspace runs its own commands (PULUMI_HOME and the workspace's variables added, as it
 * adds them). Without it, the SDK's own two commands.
 */
export async function selectOrCreateStack(
  workspace: LocalWorkspace,
  name: string,
  secretsProvider: string | undefined,
  sdk: { select(name: string): Promise<void>; create(name: string): Promise<void> },
): Promise<void> {
  const command: unknown = workspace.pulumiCommand;
  if (!runsCommands(command)) {
    await sdk.select(name).catch((err: unknown) => {
      if (err instanceof StackNotFoundError) return sdk.create(name);
      throw err;
    });
    return;
  }
  const args = ["stack", "select", "--create", "--stack", name];
  if (secretsProvider) args.push("--secrets-provider", secretsProvider);
  await command.run(args, workspace.workDir, {
    ...(workspace.pulumiHome ? { PULUMI_HOME: workspace.pulumiHome } : {}),
    ...workspace.envVars,
  });
}

/**
 * The options object the SDK passes to every engine and resource-monitor gRPC client it creates
 * (`grpcClientOptions` of `@pulumi/pulumi/runtime/settings`, marked internal; present in 3.248,
 * absent in 3.139). Changing it changes every client created afterwards. Undefined when absent.
 */
export function sdkGrpcClientOptions(): Record<string, unknown> | undefined {
  let settings: { grpcClientOptions?: unknown };
  try {
    settings = require("@pulumi/pulumi/runtime/settings");
  } catch {
    return undefined;
  }
  return isRecord(settings.grpcClientOptions) ? settings.grpcClientOptions : undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => !!value && typeof value === "object";

/** The first SDK version known to have `grpcClientOptions`: from it on, its absence is a move. */
const GRPC_OPTIONS_SINCE = [3, 248, 0];

/** The version of the @pulumi/pulumi this package loads. */
export function sdkVersion(): string {
  return (require("@pulumi/pulumi/version") as { version: string }).version;
}

/**
 * What of the above no longer holds for the loaded SDK, one line each; empty when all does. It
 * drives the SDK's methods on a stack whose workspace answers every CLI command at once, and
 * checks that each ran exactly its own command and asked this adapter for the rest.
 */
export async function sdkAdapterProblems(): Promise<string[]> {
  const version = sdkVersion();
  const problems: string[] = [];
  for (const op of ["up", "refresh", "destroy"] as const) {
    const commands: string[] = [];
    const asked: string[] = [];
    const probe = probeStack(commands);
    const after: AfterCommand<string> = {
      outputs: async () => (asked.push("outputs"), {}),
      summary: async () => (asked.push("summary"), "from the adapter"),
    };
    try {
      const result =
        op === "up"
          ? await upWithoutFollowUps(probe, {}, after)
          : op === "refresh"
            ? await refreshWithoutFollowUps(probe, {}, after)
            : await destroyWithoutFollowUps(probe, {}, after);
      const expected = op === "up" ? ["outputs", "summary"] : ["summary"];
      if (
        commands.join(",") !== op ||
        asked.join(",") !== expected.join(",") ||
        result.summary !== "from the adapter"
      ) {
        problems.push(
          `@pulumi/pulumi ${version}: its ${op} ran [${commands.join(", ")}] and asked the stack for [${asked.join(", ")}] (expected [${op}] and [${expected.join(", ")}]): leanOps.ts would not save its follow-up commands`,
        );
      }
    } catch (err) {
      problems.push(
        `@pulumi/pulumi ${version}: its ${op} no longer runs on the adapter's view of a stack (${err instanceof Error ? err.message.split("\n")[0] : String(err)}): update sdkAdapter.ts`,
      );
    }
  }
  // The error family is a RunError by the SDK's brand, not its class (userError.ts).
  const { RunError } = await import("@pulumi/pulumi/errors");
  if (!RunError.isInstance(new UserError("probe"))) {
    problems.push(
      `@pulumi/pulumi ${version}: RunError.isInstance no longer recognises the error family's brand: errors would print with the program's source and trace; update userError.ts`,
    );
  }
  const since = GRPC_OPTIONS_SINCE.join(".");
  if (!sdkGrpcClientOptions() && compareVersions(version, since) >= 0) {
    problems.push(
      `@pulumi/pulumi ${version}: runtime/settings has no grpcClientOptions object (present since ${since}): isolateEngineConnections() would do nothing; update sdkAdapter.ts`,
    );
  }
  // selectOrCreateStack runs the CLI through the SDK's own command runner.
  const { PulumiCommand } = await import("@pulumi/pulumi/automation");
  if (!runsCommands(PulumiCommand.prototype))
    problems.push(
      `@pulumi/pulumi ${version}: PulumiCommand has no run method: a new stack costs two CLI commands (select, init) instead of one; update sdkAdapter.ts selectOrCreateStack`,
    );
  // The wire format's sentinels, declared once in this package (wireSentinels.ts), are the SDK's.
  const rpc = await import("@pulumi/pulumi/runtime/rpc");
  const sentinels: [string, string, string][] = [
    ["unknownValue", rpc.unknownValue, UNKNOWN_VALUE],
    ["specialSigKey", rpc.specialSigKey, SIG_KEY],
    ["specialSecretSig", rpc.specialSecretSig, SECRET_SIG],
  ];
  for (const [name, theirs, ours] of sentinels)
    if (theirs !== ours)
      problems.push(
        `@pulumi/pulumi ${version}: runtime/rpc's ${name} is ${JSON.stringify(theirs)}, not wireSentinels.ts's ${JSON.stringify(ours)}: secrets or unknowns would be misread; update wireSentinels.ts`,
      );
  // The plugin's Construct runs the SDK's runtime through its internals (plugin/constructAdapter.ts).
  const missing = constructAdapterProblems();
  if (missing.length > 0) {
    problems.push(
      `@pulumi/pulumi ${version}: ${missing.join(", ")} gone: the plugin's Construct (MessagingControls) would fail; update plugin/constructAdapter.ts`,
    );
  }
  return problems;
}

/**
 * A Stack (the SDK's class, its own methods) over a workspace that answers every CLI command with
 * an empty success and records it. No program, no event log: nothing but the method's own flow runs.
 */
function probeStack(commands: string[]): Stack {
  const workspace = {
    workDir: tmpdir(),
    envVars: {},
    program: undefined,
    pulumiHome: undefined,
    serializeArgsForOp: async () => [],
    postCommandCallback: async () => undefined,
    pulumiCommand: {
      run: async (args: string[]) => {
        commands.push(args[0] === "stack" ? `stack ${args[1]}` : args[0]);
        return { stdout: "[]", stderr: "", code: 0 };
      },
    },
    stackOutputs: async () => {
      commands.push("stack output");
      return {};
    },
  };
  return Object.create(Stack.prototype, { name: { value: "sdk-adapter-probe" }, workspace: { value: workspace } });
}
