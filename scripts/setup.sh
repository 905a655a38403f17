#!/usr/bin/env bash
# Everything `npm start`, `npm test` and `npm run bench` need before they run:
# the compiled package, the package resolvable by its own name, and a Pulumi CLI.
#   --typecheck  also type-check the tests (what `npm test` wants)
#   --yaml       also Pulumi's YAML language host beside the CLI (`npm run setup`, the plugin's YAML proof)
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
  bash scripts/build.sh   # dist/: the compile and the plugin's bundle (also `npm pack`'s prepack)

  # Programs in this repository (the root Pulumi.yaml, examples/, tests) import `pulumi-mgmt` exactly
  # as a user's program does, and the dynamic provider loads its code by that name at run time. It
  # is installed from `npm pack`, not linked: only a package whose real path runs through
  # node_modules/pulumi-mgmt/ is serialized into state as a require() (provider/resources/dynamicDoor.ts).
  echo "[setup] packing pulumi-mgmt (npm pack) and installing it into node_modules/pulumi-mgmt" >&2
  packdir=$(mktemp -d)
  # --ignore-scripts: its prepack is the build just made.
  tarball=$(npm pack --silent --ignore-scripts --pack-destination "$packdir" 2>/dev/null | tail -n 1)
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
# A CLI built here is not on PATH: say how to run it from a shell (YAML, Go and Python programs).
if [ "$(command -v pulumi 2>/dev/null)" != "$bin/pulumi" ]; then
  echo "[setup] it is not the pulumi on PATH; to run it yourself: export PATH=\"$bin:\$PATH\"" >&2
fi
if [[ " $* " == *" --yaml "* ]]; then
  # The folder to put on PATH when the CLI's own could not take the host (the YAML proofs of test/e2e/pluginProofs.test.ts).
  yaml_dir=$(bash scripts/ensure-yaml.sh "$bin" | tail -n 1)
  echo "$yaml_dir" > "$stamps/yaml-dir"
fi
if [[ " $* " == *" --python "* ]]; then
  # Here rather than in the first test that needs it: pip's first install waits on PyPI for a minute or two.
  bash scripts/ensure-python.sh "$bin" >/dev/null
fi
