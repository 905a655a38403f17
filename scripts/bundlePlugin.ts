/**
 * Bundles the `mgmt` plugin's compiled entry (dist/provider/plugin/main.js) and everything it
 * loads into one file beside it, `main.bundle.js`, which the `pulumi-resource-mgmt` bin and the
 * installed launcher run. Every engine run through the plugin starts one plugin process; served
 * from about 240 files, a third of its start-up CPU went to finding and reading them (Node's
 * module loader), not to running them (docs/plugin.md, "The process").
 *
 * The same compiled modules the dynamic resources load, bundled: one implementation per
 * resource. Left out, and required from node_modules as before, only when a call needs them:
 * - the root @pulumi/pulumi and its runtime (Construct, the getX functions' Output forms): they
 *   are the program's own SDK, with its process-wide state;
 * - undici (the first request);
 * - google-protobuf, whose well-known types (Struct) register on the global object: a second
 *   copy, the SDK's in Construct, would replace the bundled one's under it;
 * - @grpc/proto-loader, which grpc-js loads only for its channelz and ORCA services.
 *
 * Run by scripts/setup.sh and `npm run build` after the TypeScript compile.
 */
import { chmodSync } from "node:fs";
import path from "node:path";
import { build, type BuildOptions, type Metafile, type Plugin } from "esbuild";
import { PLUGIN_ENTRY } from "../provider/plugin/install";

/** What stays a require() from node_modules, with the reason above. */
export const EXTERNAL = /^(@pulumi\/pulumi|undici|google-protobuf|@grpc\/proto-loader)(\/|$)/;
/** Of the SDK, its generated protocol messages are the plugin's own vocabulary, and bundled. */
const BUNDLED_SDK = /^@pulumi\/pulumi\/proto\//;

const externals: Plugin = {
  name: "mgmt-plugin-externals",
  setup(b) {
    b.onResolve({ filter: EXTERNAL }, (args) =>
      BUNDLED_SDK.test(args.path) ? undefined : { path: args.path, external: true },
    );
  },
};

const BANNER = [
  "// The mgmt plugin of pulumi-mgmt, bundled by scripts/bundlePlugin.ts from the package's compiled",
  "// modules. It includes zod (MIT), @grpc/grpc-js (Apache-2.0), @js-sdsl/ordered-map (MIT) and",
  "// @pulumi/pulumi's generated protocol messages (Apache-2.0), each installed with this package",
  "// (as a dependency, or the peer @pulumi/pulumi) with its license.",
].join("\n");

export function bundleOptions(dist: string): BuildOptions {
  const dir = path.join(dist, "provider", "plugin");
  return {
    entryPoints: [path.join(dir, "main.js")],
    outfile: path.join(dir, PLUGIN_ENTRY),
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    // Names are kept (no identifier minification): an internal error still reads as the source.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "none",
    banner: { js: BANNER },
    metafile: true,
    logLevel: "warning",
    plugins: [externals],
  };
}

/** Writes the bundle into `dist` and returns what went into it. */
export async function bundlePlugin(dist: string, write = true): Promise<Metafile> {
  const result = await build({ ...bundleOptions(dist), write });
  if (write) chmodSync(path.join(dist, "provider", "plugin", PLUGIN_ENTRY), 0o755);
  return result.metafile!;
}

if (require.main === module) {
  bundlePlugin(path.resolve(__dirname, "..")).catch((err: unknown) => {
    process.stderr.write(`bundlePlugin: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
