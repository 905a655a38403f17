/**
 * Errors a user can act on: missing or bad configuration, bad input, an identity mismatch, a
 * service's answer. They are Pulumi `RunError`s, which the program's runtime prints as their
 * message alone, and carry no stack: the dynamic provider host prints `${error}: ${stack}` for
 * failures of check, diff and read, and a trace of our internals would bury the advice.
 */
// The submodule, not the root: the plugin (provider/plugin/) must not load the whole SDK.
import { RunError } from "@pulumi/pulumi/errors";

export class UserError extends RunError {
  constructor(message: string) {
    super(message);
    Object.defineProperty(this, "stack", { value: "", writable: true, configurable: true });
  }
}
