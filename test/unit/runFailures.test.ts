/**
 * How the fleet and the driver judge a failed run (fleet/converge.ts): a lock by the
 * Automation API's typed error, never retried; the service, network and backend failing for a
 * moment by the engine's text (no typed error exists for them), retried.
 */
import { CommandError, ConcurrentUpdateError } from "@pulumi/pulumi/automation";
import { isStackLocked, isTransientFailure, runFailureReason } from "../../fleet/converge";

/** What the SDK's errors carry: the failed command's result, printed (the update's diagnostics in stdout). */
const commandText = (stderr: string, diagnostics = "") =>
  `code: 255\n stdout: Updating (t01):\n\nDiagnostics:\n  pulumi-nodejs:dynamic:Resource (idx):\n${diagnostics}\n stderr: ${stderr}\n err?: \n`;

test("a stack locked by another update: the SDK's ConcurrentUpdateError, never transient, one line that says what to do", () => {
  const locked = new ConcurrentUpdateError(
    commandText(
      "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.\n  file:///state/.pulumi/locks/tenants/t01/abc.json: created by x@y (pid 1) at 2026-11-25T10:00:00Z (503 ago)",
    ),
  );
  expect(isStackLocked(locked)).toBe(true);
  expect(isTransientFailure(locked)).toBe(false);
  expect(runFailureReason(locked)).toBe(
    "another update of this stack is in progress (Pulumi's lock): wait for it to finish; after a crash of this driver, run it again with --recover",
  );
  expect(runFailureReason(locked, true)).toMatch(
    /^another update of this stack is in progress outside the fleet .*run `pulumi cancel` on the stack if its process is gone$/,
  );
});

test("a lock is known by the SDK's type, not by words in some other error's text", () => {
  const quoted = new CommandError(
    commandText('error: creating search index "another update is currently in progress": 400 Bad Request'),
  );
  expect(isStackLocked(quoted)).toBe(false);
  expect(isStackLocked(new Error("the stack is currently locked by 1 lock(s)"))).toBe(false);
});

test("the service, the network or the state backend failing for a moment: transient", () => {
  for (const stderr of [
    'error: creating search index "idx": the service answered 503 Service Unavailable',
    "error: read ECONNRESET",
    "error: failed to load checkpoint: unable to open bucket postgres://db/pulumi: connection refused",
    "error: FATAL: terminating connection due to administrator command",
    "error: Resource monitor is terminating",
  ])
    expect([stderr, isTransientFailure(new CommandError(commandText(stderr)))]).toEqual([stderr, true]);
});

test("a definite refusal is not transient, and its reason is the engine's own error lines", () => {
  const refused = new CommandError(
    commandText("error: update failed", '    error: creating search index "idx": 400 Bad Request: name is taken\n'),
  );
  expect(isTransientFailure(refused)).toBe(false);
  expect(runFailureReason(refused)).toBe('creating search index "idx": 400 Bad Request: name is taken');
});

test("a reason too long for a status line is cut, and says so", () => {
  const long = new CommandError(commandText("error: update failed", `    error: ${"x".repeat(500)}\n`));
  const reason = runFailureReason(long);
  expect([reason.length, reason.endsWith("x…")]).toEqual([400, true]);
});

test("pulumi-mgmt/fleet exports no generic names", () => {
  const fleet = require("../../fleet") as Record<string, unknown>;
  for (const generic of ["reason", "isLocked", "isTransient"]) expect(Object.keys(fleet)).not.toContain(generic);
});
