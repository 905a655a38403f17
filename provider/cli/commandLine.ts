/**
 * The command lines of the package's commands (mgmt-fleet, mgmt-emulator, mgmt-recover,
 * mgmt-template, the tenants driver): node's parseArgs, with what it refuses said in one line
 * that names the option and the way on. node's own messages run to three lines and suggest
 * `--` tricks a user did not ask about.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UserError } from "../userError";

/** A command line a command cannot run: the package's commands exit with status 2 for it. */
export class UsageError extends UserError {
  override readonly name = "UsageError";
}

/** The exit status for a failure: 2 for a command line that cannot run, else 1. */
export const exitStatus = (err: unknown): number => (err instanceof UsageError ? 2 : 1);

type Parsed<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/**
 * parseArgs(config), refusing more than `maxPositionals` positional arguments (default: as many
 * as config allows). `help` is the command that lists the options (`mgmt-fleet worker --help`).
 */
export function parseCommandLine<T extends ParseArgsConfig>(
  config: T,
  o: { help: string; maxPositionals?: number },
): Parsed<T> {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs(config);
  } catch (err) {
    throw new UsageError(`${refusal(err as Error & { code?: string })}; ${o.help} lists what it takes`);
  }
  const extra = (parsed.positionals ?? []).slice(o.maxPositionals ?? Infinity);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"; ${o.help} lists what it takes`);
  return parsed;
}

/** node's refusal as a clause naming the option (its messages quote it: '--lock-wait <value>', '-h, --help'). */
function refusal(err: Error & { code?: string }): string {
  const quoted = /'(?:-\w, )?(--?[^' ,<]+)/.exec(err.message)?.[1];
  const option = quoted ?? "an option";
  switch (err.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option}`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument "${/'([^']*)'/.exec(err.message)?.[1] ?? ""}"`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (/ambiguous/.test(err.message)) return `${option}: a value that starts with "-" is written ${option}=VALUE`;
      if (/does not take an argument/.test(err.message)) return `${option}: takes no value`;
      return `${option}: needs a value`;
    default:
      return err.message.split("\n")[0];
  }
}
