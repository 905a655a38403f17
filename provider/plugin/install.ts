/**
 * `pulumi-resource-mgmt install`: makes the plugin available with no download. The engine finds a
 * resource plugin in a `Pulumi.yaml` `plugins.providers` path, on PATH, or in its plugin folder
 * (`$PULUMI_HOME/plugins/resource-<name>-v<version>/`); writing a small launcher there makes every
 * project on the machine find `mgmt` at this package's version, whatever its language. The
 * launcher names the node and the plugin it was written for, so that a package moved or removed
 * later fails in one line that says how to install again, not with a missing-file trace.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { PACKAGE } from "./pulumiTypes";
import { PLUGIN_VERSION } from "./schema";
import { PLUGIN_ENTRY } from "./entry";

// The plugin's files, named in entry.ts so that start.js loads nothing else; exported here too
// for the callers that install it.
export { PLUGIN_BUNDLE, PLUGIN_ENTRY } from "./entry";
export const PLUGIN_EXECUTABLE = `pulumi-resource-${PACKAGE}`;
export const INSTALL_COMMAND = `npx ${PLUGIN_EXECUTABLE} install`;
/**
 * The version a launcher was written for, which it passes to the plugin it starts: the package it
 * names may since have been upgraded in place, and the engine would then run another version's
 * code under this one's name (main.ts refuses, in one line).
 */
export const INSTALLED_AS_VAR = "PULUMI_MGMT_PLUGIN_INSTALLED_AS";

/** Pulumi's own rule for its home folder. */
export function pulumiHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.PULUMI_HOME || path.join(homedir(), ".pulumi");
}

/** The plugin folder the engine looks in for `mgmt` at this version. */
export function pluginCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(pulumiHome(env), "plugins", `resource-${PACKAGE}-v${PLUGIN_VERSION}`);
}

const quoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The launcher's text: this node, this plugin entry, the version it is for, and a one-line
 * failure when the entry is gone.
 */
export function launcher(main: string, node: string = process.execPath, version: string = PLUGIN_VERSION): string {
  return [
    "#!/bin/sh",
    `# Written by \`${PLUGIN_EXECUTABLE} install\`: the ${PACKAGE} plugin of pulumi-mgmt ${version}.`,
    `main=${quoted(main)}`,
    `[ -f "$main" ] || { echo "${PACKAGE} plugin: $main is gone (pulumi-mgmt was moved or removed): run \\\`${INSTALL_COMMAND}\\\` in a project that has pulumi-mgmt ${version}" >&2; exit 1; }`,
    `export ${INSTALLED_AS_VAR}=${quoted(version)}`,
    `exec ${quoted(node)} "$main" "$@"`,
    "",
  ].join("\n");
}

/**
 * Writes the launcher into `dir` (default: the engine's plugin folder for this version) and
 * returns its path. `main` is the plugin's entry (this package's own bundle by default).
 */
export function installPlugin(
  dir: string = pluginCacheDir(),
  main: string = path.join(__dirname, PLUGIN_ENTRY),
): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, PLUGIN_EXECUTABLE);
  writeFileSync(file, launcher(main));
  chmodSync(file, 0o755);
  return file;
}
