#!/usr/bin/env node
/**
 * `pulumi-resource-mgmt`: runs the plugin's bundle (main.bundle.js) through V8's code cache. Every
 * engine run through the plugin starts a plugin process, and about a third of its start-up CPU
 * went to compiling the bundle's 1.5 MB of JavaScript, the same work each time (docs/plugin.md,
 * "The process"). The first run of a bundle under a Node.js writes the compiled code to the
 * user's cache folder; later runs start from it. Any failure to read or write it costs only the
 * compile: the plugin never depends on the cache.
 *
 * The cache is the user's own: `$PULUMI_MGMT_CACHE`, else `$XDG_CACHE_HOME/pulumi-mgmt`, else
 * `~/.cache/pulumi-mgmt` (the rule scripts/ensure-pulumi.sh keeps the CLI under), in
 * `plugin-code/`, one file per bundle and Node.js version. V8 rejects a cache made by another V8
 * or for other source, and the plugin then compiles and writes a new one.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { homedir } from "node:os";
import path from "node:path";
import vm from "node:vm";
import { PLUGIN_BUNDLE } from "./entry";

export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const root = env.PULUMI_MGMT_CACHE || path.join(env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "pulumi-mgmt");
  return path.join(root, "plugin-code");
}

/** Runs `file` (a CommonJS module) as the main program, from and into the code cache in `cacheDir`. */
export function runCached(file: string, cacheDir: string): void {
  const source = readFileSync(file, "utf8").replace(/^#!.*/, "");
  const key = createHash("sha256").update(process.version).update(source).digest("hex").slice(0, 32);
  const cacheFile = path.join(cacheDir, `${key}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cachedData === undefined || script.cachedDataRejected === true) {
    // As soon as the bundle has run: the engine ends a plugin with SIGKILL, so no later moment is
    // sure to come, and a plugin killed before would compile again at every start.
    setImmediate(() => {
      try {
        mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        const temp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
        renameSync(temp, cacheFile); // whole or not at all, whoever else writes it meanwhile
      } catch {
        // A read-only or full disk: the next start compiles again.
      }
    });
  }
  const mod = new Module(file, module);
  mod.filename = file;
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, path.dirname(file));
}

if (require.main === module) runCached(path.join(__dirname, PLUGIN_BUNDLE), codeCacheDir());
