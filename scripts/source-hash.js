#!/usr/bin/env node
// One content hash of what scripts/setup.sh builds from, so it and Jest's global setup
// (test/support/globalSetup.ts) agree on when dist/ is stale. Plain CommonJS: it runs before
// anything is compiled.
//   node scripts/source-hash.js [--typecheck] [ROOT]   prints the hash
//   --typecheck  the inputs of `tsc -p tsconfig.json` (adds test/) instead of the build's
//   node scripts/source-hash.js --is-built [ROOT]       exit 0 when setup.sh need not compile or pack
"use strict";
const { createHash } = require("node:crypto");
const { existsSync, readFileSync, readdirSync, statSync } = require("node:fs");
const path = require("node:path");

// Besides the folders the tsconfig compiles: the manifests (dependencies change the output), and
// what npm pack takes from outside dist/ (the tarball is part of what setup.sh makes): README and
// LICENSE always, and package.json's "files".
const ALWAYS = [
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "README.md",
  "LICENSE",
  // The workspace packages' manifests: setup.sh packs them beside pulumi-mgmt.
  "emulator/package.json",
  "fleet/package.json",
];

/** package.json's "files" outside dist/; a pattern stands for the folder it is in. */
function packedInputs(root) {
  const { files = [] } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  return files
    .filter((f) => !f.startsWith("!") && !/^\.?\/?dist(\/|$)/.test(f))
    .map((f) => {
      const glob = f.search(/[*?[{]/);
      if (glob < 0) return f;
      const folder = f.slice(0, glob).replace(/\/?[^/]*$/, "");
      if (!folder)
        throw new Error(
          `package.json "files" has "${f}" at the top level: scripts/source-hash.js takes folders and files only`,
        );
      return folder;
    });
}

/** The `include` of a tsconfig (following `extends` when it has none): what tsc compiles. */
function tsconfigInclude(root, file) {
  const config = JSON.parse(readFileSync(path.join(root, file), "utf8"));
  if (config.include) {
    const glob = config.include.find((i) => /[*?]/.test(i));
    if (glob)
      throw new Error(`${file} includes the pattern "${glob}": scripts/source-hash.js takes folders and files only`);
    return config.include;
  }
  if (config.extends) return tsconfigInclude(root, path.join(path.dirname(file), config.extends));
  throw new Error(`${file} has no "include": scripts/source-hash.js cannot tell what it compiles`);
}

/** Every file under `rel` (a file or a folder), as paths relative to root with "/" separators. */
function listFiles(root, rel, out, keep = () => true) {
  let stat;
  try {
    stat = statSync(path.join(root, rel));
  } catch (err) {
    if (err.code === "ENOENT") return out; // e.g. no LICENSE: its absence is hashed by name below
    throw err;
  }
  if (stat.isDirectory()) {
    for (const entry of readdirSync(path.join(root, rel))) {
      // A workspace package's dist/ (emulator/dist, fleet/dist) is what setup.sh stages, not a source.
      if (entry !== "node_modules" && entry !== "dist") listFiles(root, `${rel}/${entry}`, out, keep);
    }
  } else if (keep(rel)) {
    out.push(rel);
  }
  return out;
}

// What tsc reads from the folders it includes (no allowJs or resolveJsonModule): not the state
// files, logs and fixtures' Pulumi.<stack>.yaml that runs leave there.
const TYPESCRIPT = /\.(ts|tsx|mts|cts)$/;

/** Hex sha256 over the sorted paths and contents: an added, removed, renamed or edited file changes it. */
function sourceHash(root, options = {}) {
  const compiled = tsconfigInclude(root, options.typecheck ? "tsconfig.json" : "tsconfig.build.json");
  const whole = [...ALWAYS, ...packedInputs(root)];
  const roots = [...compiled, ...whole];
  const files = [
    ...new Set([
      ...compiled.flatMap((r) => listFiles(root, r.replace(/\/+$/, ""), [], (f) => TYPESCRIPT.test(f))),
      ...whole.flatMap((r) => listFiles(root, r.replace(/\/+$/, ""), [])),
    ]),
  ].sort();
  const hash = createHash("sha256");
  hash.update(`${options.typecheck ? "typecheck" : "build"}\0${roots.join("\0")}\0`);
  for (const file of files) {
    const content = readFileSync(path.join(root, file));
    hash.update(`${file}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest("hex");
}

/** dist/.built holds the hash dist/ and the package were made from (written last by setup.sh). */
function isBuilt(root) {
  const has = (file) => existsSync(path.join(root, file));
  const made = [
    "node_modules/pulumi-mgmt/package.json",
    "node_modules/.cache/pulumi-mgmt/pulumi-mgmt.tgz",
    "emulator/dist/cli.js",
    "fleet/dist/cli.js",
  ];
  if (!made.every(has)) return false;
  return has("dist/.built") && readFileSync(path.join(root, "dist/.built"), "utf8").trim() === sourceHash(root);
}

module.exports = { sourceHash, isBuilt };

if (require.main === module) {
  const args = process.argv.slice(2);
  const flags = new Set(args.filter((a) => a.startsWith("--")));
  const unknown = [...flags].find((f) => f !== "--typecheck" && f !== "--is-built");
  if (unknown) {
    process.stderr.write(`source-hash: unknown option ${unknown}\n`);
    process.exit(2);
  }
  const root = path.resolve(args.find((a) => !a.startsWith("--")) ?? path.join(__dirname, ".."));
  if (flags.has("--is-built")) process.exit(isBuilt(root) ? 0 : 1);
  process.stdout.write(`${sourceHash(root, { typecheck: flags.has("--typecheck") })}\n`);
}
