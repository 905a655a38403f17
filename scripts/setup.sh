#!/usr/bin/env bash
# Everything `npm start`, `npm test` and `npm run bench` need before they run:
# the compiled package, the package resolvable by its own name, and a Pulumi CLI.
#   --typecheck  also type-check the tests (what `npm test` wants)
#   --yaml       also Pulumi's YAML language host beside the CLI (the plugin's YAML proof)
#   --python     also the virtual environment of the plugin's Python proof (scripts/ensure-python.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[ -d node_modules/@pulumi/pulumi ] || { echo "[setup] dependencies missing: run 'npm ci' first" >&2; exit 1; }

# Each step is skipped when the content hash of its inputs (scripts/source-hash.js) matches the
# stamp its last success left: unchanged sources cost no recompile, repack or type-check.
stamps=node_modules/.cache/pulumi-mgmt
mkdir -p "$stamps"
if node scripts/source-hash.js --is-built; then   # the check Jest's global setup makes too
  echo "[setup] dist/ is up to date" >&2
else
  build_hash=$(node scripts/source-hash.js)
  # Say what the silence is for: the first compile takes half a minute or more on a small machine.
  sources=$(find provider emulator fleet scripts bench -name '*.ts' ! -name '*.d.ts' | wc -l | tr -d ' ')
  echo "[setup] compiling the package's TypeScript to dist/ ($sources files of provider/, emulator/, fleet/, scripts/, bench/; the first time takes up to a minute)" >&2
  rm -rf dist
  npx --no-install tsc -p tsconfig.build.json
  node dist/scripts/bundlePlugin.js   # the plugin in one file: dist/provider/plugin/main.bundle.js, its licenses beside it
  chmod +x dist/emulator/cli.js dist/provider/cli/recover.js dist/provider/cli/template.js dist/fleet/cli.js 2>/dev/null || true

  # The emulator and the fleet are packages of their own (npm workspaces, linked into node_modules
  # by npm ci): each gets its folder of dist/ and the license. Both import pulumi-mgmt by name
  # (pulumi-mgmt/internal/*: the wire schemas, the automation helpers), a peer.
  echo "[setup] staging the packages pulumi-mgmt-emulator (emulator/dist) and pulumi-mgmt-fleet (fleet/dist)" >&2
  rm -rf emulator/dist fleet/dist
  cp -R dist/emulator emulator/dist
  cp -R dist/fleet fleet/dist
  cp LICENSE emulator/LICENSE
  cp LICENSE fleet/LICENSE

  # Programs in this repository (the root Pulumi.yaml, examples/, tests) import `pulumi-mgmt` exactly
  # as a user's program does, and the dynamic provider loads its code by that name at run time. It
  # is installed from `npm pack`, not linked: only a package whose real path runs through
  # node_modules/pulumi-mgmt/ is serialized into state as a require() (provider/resources/serializedProvider.ts).
  echo "[setup] packing pulumi-mgmt (npm pack) and installing it into node_modules/pulumi-mgmt" >&2
  packdir=$(mktemp -d)
  tarball=$(npm pack --silent --pack-destination "$packdir" 2>/dev/null | tail -n 1)
  rm -rf node_modules/pulumi-mgmt
  mkdir -p node_modules/pulumi-mgmt
  tar -xzf "$packdir/$tarball" -C node_modules/pulumi-mgmt --strip-components=1
  # The version matrix (test/matrix) installs this same tarball into users' projects.
  mv "$packdir/$tarball" "$stamps/pulumi-mgmt.tgz"
  rm -rf "$packdir"
  # Last, and the hash from before the compile: a failed step or a source edited meanwhile
  # means the next run builds again. Jest's global setup reads this too.
  echo "$build_hash" > dist/.built
fi

# After the build: examples/ import `pulumi-mgmt`, which resolves to the package installed above.
if [[ " $* " == *" --typecheck "* ]]; then
  # The stamp is not in dist/: a compile empties dist/.
  typecheck_hash=$(node scripts/source-hash.js --typecheck)
  if [ "$(cat "$stamps/typechecked" 2>/dev/null)" = "$typecheck_hash" ]; then
    echo "[setup] type-check is up to date" >&2
  else
    echo "[setup] type-checking" >&2
    npx --no-install tsc -p tsconfig.json --noEmit
    echo "$typecheck_hash" > "$stamps/typechecked"
  fi
fi

bin=$(bash scripts/ensure-pulumi.sh | tail -n 1)
echo "$bin" > "$stamps/cli-dir"
# The package installed above (the examples, the fleet's workers, the tenants driver) finds its CLI
# by its own record (provider/automation/cli.ts): this CLI, not a second build of the SDK's version
# by its own ensure-pulumi.sh, about 9 minutes on a bare machine, started by each of its processes.
mkdir -p node_modules/pulumi-mgmt/node_modules/.cache/pulumi-mgmt
echo "$bin" > node_modules/pulumi-mgmt/node_modules/.cache/pulumi-mgmt/cli-dir
echo "[setup] Pulumi CLI: $bin ($("$bin/pulumi" version))" >&2
if [[ " $* " == *" --yaml "* ]]; then
  # The folder to put on PATH when the CLI's own could not take the host (the YAML proofs of test/e2e/pluginProofs.test.ts).
  yaml_dir=$(bash scripts/ensure-yaml.sh "$bin" | tail -n 1)
  echo "$yaml_dir" > "$stamps/yaml-dir"
fi
if [[ " $* " == *" --python "* ]]; then
  # Here rather than in the first test that needs it: pip's first install waits on PyPI for a minute or two.
  bash scripts/ensure-python.sh "$bin" >/dev/null
fi
