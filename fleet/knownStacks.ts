/**
 * Which tenant stack a tenant's work folder has run, on which backend: a marker file in the
 * folder, written after a run that found or made the stack and removed with the stack (or when an
 * operation finds it gone). With it, a run starts no CLI command to select its stack
 * (automation/stack.ts `known`): every CLI start costs about 0.4 s of CPU before it does
 * anything, as much as a third of a tenant's run. The backend is named by a hash: a postgres://
 * URL may hold a password, and nothing secret goes to disk.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const MARKER = ".mgmt-stack";

const identity = (backendUrl: string, stack: string) =>
  `${createHash("sha256").update(backendUrl).digest("hex").slice(0, 32)} ${stack}\n`;

export function isKnownStack(workDir: string, backendUrl: string, stack: string): boolean {
  try {
    return readFileSync(path.join(workDir, MARKER), "utf8") === identity(backendUrl, stack);
  } catch {
    return false;
  }
}

export function markStackKnown(workDir: string, backendUrl: string, stack: string): void {
  writeFileSync(path.join(workDir, MARKER), identity(backendUrl, stack));
}

export function forgetStack(workDir: string): void {
  rmSync(path.join(workDir, MARKER), { force: true });
}
