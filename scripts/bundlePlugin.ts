/**
 * Bundles the `mgmt` plugin's compiled entry (dist/provider/plugin/main.js) and everything it
 * loads into one file beside it, `main.bundle.js`, which the `pulumi-resource-mgmt` bin and the
 * installed launcher run (through start.js, which keeps V8's compiled code of it between starts). Every engine run through the plugin starts one plugin process; served
 * from about 240 files, about a quarter of its start-up CPU went to finding and reading them
 * (Node's module loader), not to running them (docs/plugin.md, "The process").
 *
 * The same compiled modules the dynamic resources load, bundled: one implementation per
 * resource. Left out, and required from node_modules as before, only when a call needs them:
 * - the root @pulumi/pulumi and its runtime (Construct, the getX functions' Output forms): they
 *   are the program's own SDK, with its process-wide state;
 * - undici (the first request);
 * - google-protobuf, whose well-known types (Struct) register on the global object: a second
 *   copy, the SDK's in Construct, would replace the bundled one's under it;
 * - @grpc/proto-loader, which grpc-js loads only for its channelz and ORCA services (never
 *   served here; a strict package layout such as pnpm's would not resolve it from here).
 * The SDK's generated protocol messages are bundled: the plugin speaks the protocol of the SDK it
 * was built with, whichever SDK the program has.
 *
 * The bundled packages' licenses go beside it, in THIRD_PARTY_LICENSES.txt, named in its banner.
 * Run by scripts/setup.sh and `npm run build` after the TypeScript compile; the plugin's unit test
 * fails when the bundle on disk is not what the compiled modules make.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build, type BuildOptions, type Metafile, type Plugin } from "esbuild";
import { PLUGIN_BUNDLE, PLUGIN_ENTRY } from "../provider/plugin/entry";

/** What stays a require() from node_modules, with the reason above. */
export const EXTERNAL = /^(@pulumi\/pulumi|undici|google-protobuf|@grpc\/proto-loader)(\/|$)/;
/** Of the SDK, its generated protocol messages are the plugin's own vocabulary, and bundled. */
const BUNDLED_SDK = /^@pulumi\/pulumi\/proto\//;
export const LICENSES_FILE = "THIRD_PARTY_LICENSES.txt";

const externals: Plugin = {
  name: "mgmt-plugin-externals",
  setup(b) {
    b.onResolve({ filter: EXTERNAL }, (args) =>
      BUNDLED_SDK.test(args.path) ? undefined : { path: args.path, external: true },
    );
  },
};

/** The plugin bundle's esbuild options; the single executable's bundle (scripts/release.ts) starts from them. */
export function bundleOptions(dist: string): BuildOptions {
  return {
    absWorkingDir: path.resolve(dist, ".."),
    entryPoints: [path.join(dist, "provider", "plugin", "main.js")],
    outfile: path.join(dist, "provider", "plugin", PLUGIN_BUNDLE),
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    // Names are kept (no identifier minification): an internal error still reads as the source.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
    plugins: [externals],
    write: false,
  };
}

export interface BundledPackage {
  name: string;
  version: string;
  license: string;
  licenseText: string;
}

/** The packages whose files went into the bundle (the innermost node_modules folder of each input). */
export function bundledPackages(metafile: Metafile, root: string): BundledPackage[] {
  const dirs = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input.replace(/\\/g, "/"));
    if (m) dirs.add(m[1]);
  }
  return [...dirs].sort().map((dir) => {
    const manifest = JSON.parse(readFileSync(path.join(root, dir, "package.json"), "utf8")) as {
      name: string;
      version: string;
      license?: string;
    };
    const file = ["LICENSE", "LICENSE.md", "LICENSE.txt", "license"].find((f) => existsSync(path.join(root, dir, f)));
    if (!file) throw new Error(`${manifest.name} has no license file to ship with the bundle`);
    return {
      name: manifest.name,
      version: manifest.version,
      license: manifest.license ?? "see its license text",
      licenseText: readFileSync(path.join(root, dir, file), "utf8").trim(),
    };
  });
}

/** THIRD_PARTY_LICENSES.txt's text: each package bundled into `into`, with its license. */
export function licensesText(packages: BundledPackage[], into: string): string {
  return packages
    .map((p) => `${p.name} ${p.version} (${p.license}), bundled into ${into}:\n\n${p.licenseText}\n`)
    .join(`\n${"-".repeat(72)}\n\n`);
}

export interface PluginBundle {
  /** The bundle's text, banner included. */
  text: string;
  /** THIRD_PARTY_LICENSES.txt. */
  licenses: string;
  metafile: Metafile;
}

/** The bundle the compiled modules in `dist` make, not written. */
export async function pluginBundle(dist: string): Promise<PluginBundle> {
  const options = bundleOptions(dist);
  const result = await build(options);
  const packages = bundledPackages(result.metafile!, options.absWorkingDir!);
  const banner = [
    "// The mgmt plugin of pulumi-mgmt, bundled by scripts/bundlePlugin.ts from the package's compiled modules,",
    `// with ${packages.map((p) => `${p.name} ${p.version} (${p.license})`).join(", ")}: their licenses are in ${LICENSES_FILE} beside this file.`,
  ].join("\n");
  const [first, ...rest] = result.outputFiles![0].text.split("\n");
  const text = first.startsWith("#!") ? [first, banner, ...rest].join("\n") : [banner, first, ...rest].join("\n");
  return { text, licenses: licensesText(packages, PLUGIN_BUNDLE), metafile: result.metafile! };
}

/** Writes the bundle and its licenses into `dist`. */
export async function writePluginBundle(dist: string): Promise<void> {
  const { text, licenses } = await pluginBundle(dist);
  const dir = path.join(dist, "provider", "plugin");
  writeFileSync(path.join(dir, PLUGIN_BUNDLE), text);
  chmodSync(path.join(dir, PLUGIN_BUNDLE), 0o755);
  chmodSync(path.join(dir, PLUGIN_ENTRY), 0o755); // the compiled start.js, which runs the bundle
  writeFileSync(path.join(dir, LICENSES_FILE), licenses);
}

if (require.main === module) {
  writePluginBundle(path.resolve(__dirname, "..")).catch((err: unknown) => {
    process.stderr.write(`bundlePlugin: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
