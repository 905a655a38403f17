/**
 * The one error family of pulumi-mgmt. Everything it throws is a `MgmtError`:
 * - `UserError`: what a user can act on (missing or bad configuration, bad input, an identity
 *   mismatch, a service's answer: `ApiError` in api/errors.ts). One line that names the field or
 *   object and the way on, and no stack: the dynamic provider host prints `${error}: ${stack}`
 *   for failures of check, diff and read, and a trace of our internals would bury the advice.
 * - `InternalError`: a bug of pulumi-mgmt (a caller broke an invariant). It keeps its stack, and
 *   says it is a bug, so that nobody looks for a setting to change.
 *
 * Every error of the family is a Pulumi `RunError` as the SDK tells one (`RunError.isInstance`,
 * the brand `__pulumiRunError`, which is also how two copies of the SDK recognise each other's),
 * so a program's runtime prints it as its message alone instead of the program's source and
 * trace. Branded rather than derived from the SDK's class: `mgmt-template` runs from an unpacked
 * tarball with no @pulumi/pulumi beside it, and the plugin (provider/plugin/) loads no SDK code
 * it does not need. sdkAdapterProblems() (automation/sdkAdapter.ts) checks every SDK of the
 * matrix still recognises the brand.
 */

// No `name` of their own: a plain UserError prints as "Error: ...", what a user expects; the kinds
// below it name themselves (ConfigError, ApiError, ...).
export class MgmtError extends Error {
  /** What the SDK's `RunError.isInstance` looks for. */
  readonly __pulumiRunError = true;
}

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

/**
 * A create or update that did part of its work and then failed: the object exists (a create) or
 * changed (an update), and `properties` are its outputs as they now are. Its message is the
 * failure's own line and what happens next. Both doors answer it as Pulumi's "created, but failed to initialise"
 * (pulumirpc.ErrorResourceInitFailed): the engine records the object in the stack with these
 * outputs, shows the failure, and the next `up` updates it (docs/troubleshooting.md). The field
 * names are the ones the dynamic provider host reads (`id`, `properties`, `reasons`); the plugin
 * builds the same answer (provider/plugin/initFailed.ts).
 */
export class PartialFailure extends UserError {
  readonly reasons: string[];
  constructor(
    readonly id: string,
    readonly properties: Record<string, unknown>,
    cause: unknown,
  ) {
    super(
      `${cause instanceof Error ? cause.message : String(cause)} (what was done is kept in the stack; the next \`pulumi up\` does the rest)`,
    );
    this.reasons = [this.message];
  }
}
