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
 * `plugin-code/`, one file per bundle and V8 (its version and flags). A cache is used only when
 * this user owns it and its folder, nobody else may write either, and its checksum holds: V8
 * checks little of a cache before it runs it, so a file someone else could have written, or a
 * torn one, is never loaded. The plugin then compiles, and writes a new one.
 */
import { createHash, randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { homedir } from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { PLUGIN_BUNDLE } from "./entry";

/** A checksum of the cache's payload, in front of it. */
const SUM_BYTES = 32;
/** Caches of bundles or Node.js versions not used for this long are removed when a new one is written. */
const UNUSED_MS = 30 * 24 * 3600_000;
/** A temporary file older than this is a write that was killed before its rename. */
const STALE_TEMP_MS = 3600_000;

export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME || homedir();
  const root = env.PULUMI_MGMT_CACHE || path.join(env.XDG_CACHE_HOME || path.join(home, ".cache"), "pulumi-mgmt");
  return path.join(root, "plugin-code");
}

/** Whether `file` is this user's own and nobody else may write it (not a link). */
function ownAndPrivate(file: string): boolean {
  const st = lstatSync(file);
  return !st.isSymbolicLink() && st.uid === process.getuid?.() && (st.mode & 0o022) === 0;
}

const sum = (payload: Buffer) => createHash("sha256").update(payload).digest();

/** The cache's payload, if it can be trusted: undefined otherwise (no file, someone else's, torn). */
function readCache(dir: string, file: string): Buffer | undefined {
  try {
    if (!ownAndPrivate(dir) || !ownAndPrivate(file)) return undefined;
    const data = readFileSync(file);
    const payload = data.subarray(SUM_BYTES);
    return data.length > SUM_BYTES && sum(payload).equals(data.subarray(0, SUM_BYTES)) ? payload : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(dir: string, file: string, payload: Buffer): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!ownAndPrivate(dir)) return; // a folder others may write: no cache at all
  const temp = path.join(dir, `.${randomBytes(8).toString("hex")}.tmp`);
  writeFileSync(temp, Buffer.concat([sum(payload), payload]), { mode: 0o600, flag: "wx" });
  renameSync(temp, file); // whole or not at all, whoever else writes it meanwhile
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const other = path.join(dir, name);
    const age = now - lstatSync(other).mtimeMs;
    if (other !== file && (name.endsWith(".tmp") ? age > STALE_TEMP_MS : age > UNUSED_MS))
      rmSync(other, { force: true });
  }
}

/** Runs `file` (a CommonJS module) as the main program, from and into the code cache in `cacheDir`. */
export function runCached(file: string, cacheDir: string): void {
  const source = readFileSync(file, "utf8").replace(/^#!.*/, "");
  // V8's tag changes with its version and the flags that change its code: a cache under another is rejected.
  const key = createHash("sha256").update(String(v8.cachedDataVersionTag())).update(source).digest("hex").slice(0, 32);
  const cacheFile = path.join(cacheDir, `${key}.bin`);
  const cachedData = readCache(cacheDir, cacheFile);
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
        writeCache(cacheDir, cacheFile, script.createCachedData());
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
