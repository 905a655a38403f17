#!/usr/bin/env node
/**
 * mgmt-template [--package SPEC] DIR
 *
 * Writes the project template (examples/new-project, shipped in the package) to DIR, ready for
 * `pulumi new DIR`. The template's `pulumi-mgmt` dependency is `^<this version>`, which resolves
 * once the package is on the npm registry; until then (or to try a build) `--package` points it at
 * a packed tarball or a folder, which `pulumi new` then installs. A relative path is made absolute:
 * `pulumi new` installs in the new project's folder, not here.
 */
import { cpSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { UserError } from "../userError";
import { exitStatus, parseCommandLine, UsageError } from "./commandLine";

/** The package root: this file is dist/provider/cli/template.js. */
const ROOT = path.resolve(__dirname, "../../..");
const TEMPLATE = path.join(ROOT, "examples/new-project");

export function writeTemplate(out: string, packageSpec?: string): string {
  if (!existsSync(path.join(TEMPLATE, "Pulumi.yaml")))
    throw new UserError(`the template is missing from this installation (${TEMPLATE})`);
  const dest = path.resolve(out);
  if (existsSync(dest)) throw new UserError(`${dest} already exists: give a new folder`);
  cpSync(TEMPLATE, dest, { recursive: true });
  // npm leaves every `.gitignore` out of a package: the template ships its own as `gitignore`.
  renameSync(path.join(dest, "gitignore"), path.join(dest, ".gitignore"));
  const manifestPath = path.join(dest, "package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  manifest.dependencies["pulumi-mgmt"] = packageSpec ? localSpec(packageSpec) : `^${version}`;
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return dest;
}

/** A tarball or folder as an npm `file:` spec with an absolute path; anything else (a version, a URL) as given. */
function localSpec(spec: string): string {
  const file = spec.startsWith("file:") ? spec.slice("file:".length) : spec;
  if (/^[\^~<>=\d]/.test(file) || /^[a-z+]+:\/\//i.test(file)) return spec;
  const abs = path.resolve(file);
  if (!existsSync(abs)) throw new UserError(`--package ${spec}: no such file or folder`);
  return `file:${abs}`;
}

function main(): void {
  const { values, positionals } = parseCommandLine(
    { allowPositionals: true, options: { package: { type: "string" }, help: { type: "boolean", short: "h" } } },
    { help: "mgmt-template --help", maxPositionals: 1 },
  );
  if (values.help) {
    console.log(`usage: mgmt-template [--package TARBALL|FOLDER|VERSION] DIR
  writes the pulumi-mgmt project template to DIR; then run: pulumi new DIR
  --package   what the project installs as pulumi-mgmt (default: the registry's ^version)`);
    return;
  }
  if (positionals.length === 0)
    throw new UsageError("DIR: give the folder to write the template to (mgmt-template --help)");
  const dest = writeTemplate(positionals[0], values.package);
  console.log(`template written to ${dest}\nnow run: pulumi new ${dest}`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    console.error(`mgmt-template: ${(err as Error).message}`);
    process.exit(exitStatus(err));
  }
}
