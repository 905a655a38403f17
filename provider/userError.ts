/**
 * The one error family of pulumi-mgmt. Everything it throws is a `MgmtError`:
 * - `UserError`: what a user can act on (missing or bad configuration, bad input, an identity
 *   mismatch, a service's answer: `ApiError` in api/errors.ts). One line that names the field or
 *   object and the way on, and no stack: the dynamic provider host prints `${error}: ${stack}`
 *   for failures of check, diff and read, and a trace of our internals would bury the advice.
 * - `InternalError`: a bug of pulumi-mgmt (a caller broke an invariant). It keeps its stack, and
 *   says it is a bug, so that nobody looks for a setting to change.
 *
 * The base is a Pulumi `RunError`, which a program's runtime prints as its message alone instead
 * of the program's source and trace: every error of the family ends a program cleanly.
 */
// The submodule, not the root: the plugin (provider/plugin/) must not load the whole SDK.
import { RunError } from "@pulumi/pulumi/errors";

// No `name` of their own: a plain UserError prints as "Error: ..." as it always did; the kinds
// below it name themselves (ConfigError, ApiError, ...).
export class MgmtError extends RunError {}

export class UserError extends MgmtError {
  constructor(message: string) {
    super(message);
    Object.defineProperty(this, "stack", { value: "", writable: true, configurable: true });
  }
}

export class InternalError extends MgmtError {
  override name = "InternalError";
  constructor(message: string) {
    super(`pulumi-mgmt internal error (a bug: please report it): ${message}`);
  }
}
