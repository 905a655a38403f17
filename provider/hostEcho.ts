/**
 * Pulumi's dynamic provider host answers a failed check, diff, read or delete by printing
 * `${error}: ${error.stack}` to its stderr before returning the error, and the engine shows that
 * line as well as the error. For a UserError, whose stack is empty by design (userError.ts), the
 * line is the message again with a dangling colon: "AmbiguousError: could not read ...: ". The
 * user should read the message once, so in the provider process that echo, and only it, is dropped.
 */
import { processState } from "./processState";

/**
 * The echo of a stackless error: `Name: message: `. Any other error's stack is its own text and
 * frames, so its line never ends in ": " and is printed as it is.
 */
export function isStacklessErrorEcho(args: readonly unknown[]): boolean {
  return args.length === 1 && typeof args[0] === "string" && /^[A-Za-z]*Error: [\s\S]*: $/.test(args[0]);
}

/** Installed once per process (process state: processState.ts). */
const filter = () => processState("echoFilter", () => ({ installed: false }));

/** Called in the provider process (from `configure`); the first call installs the filter. */
export function dropUserErrorEchoes(): void {
  if (filter().installed) return;
  filter().installed = true;
  const original = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    if (!isStacklessErrorEcho(args)) original(...args);
  };
}
