/**
 * Every command the repository's packages install (pulumi-mgmt, and the workspaces
 * pulumi-mgmt-emulator and pulumi-mgmt-fleet), by its name, as the absolute path of its compiled
 * file: what a user's `npx mgmt-...` runs.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "../..");

interface Manifest {
  bin?: Record<string, string>;
  workspaces?: string[];
}
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));

export const PACKAGE_DIRS: string[] = [ROOT, ...(manifest(ROOT).workspaces ?? []).map((w) => path.join(ROOT, w))];

export const BINS: Record<string, string> = Object.fromEntries(
  PACKAGE_DIRS.flatMap((dir) =>
    Object.entries(manifest(dir).bin ?? {}).map(([name, file]) => [name, path.join(dir, file)]),
  ),
);
