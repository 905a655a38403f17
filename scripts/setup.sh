#!/usr/bin/env bash
# Everything `npm start`, `npm test` and `npm run bench` need before they run:
# the compiled package, the package resolvable by its own name, and a Pulumi CLI.
#   --typecheck  also type-check the tests (what `npm test` wants)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[ -d node_modules/@pulumi/pulumi ] || { echo "[setup] dependencies missing: run 'npm ci' first" >&2; exit 1; }

if [ "${1:-}" = "--typecheck" ]; then
  echo "[setup] type-checking" >&2
  npx --no-install tsc -p tsconfig.json --noEmit
fi
echo "[setup] compiling TypeScript to dist/" >&2
rm -rf dist
npx --no-install tsc -p tsconfig.build.json
chmod +x dist/emulator/cli.js dist/provider/cli/recover.js 2>/dev/null || true
touch dist/.built   # Jest's global setup compares this with the sources

# Programs in this repository (the root Pulumi.yaml, examples/, tests) import `pulumi-mgmt` exactly
# as a user's program does, and the dynamic provider loads its code by that name at run time. It
# is installed from `npm pack`, not linked: only a package whose real path runs through
# node_modules/pulumi-mgmt/ is serialized into state as a require() (provider/resources/providerRef.ts).
packdir=$(mktemp -d)
tarball=$(npm pack --silent --pack-destination "$packdir" 2>/dev/null | tail -n 1)
rm -rf node_modules/pulumi-mgmt
mkdir -p node_modules/pulumi-mgmt
tar -xzf "$packdir/$tarball" -C node_modules/pulumi-mgmt --strip-components=1
# The version matrix (test/matrix) installs this same tarball into users' projects.
mkdir -p node_modules/.cache/pulumi-mgmt
mv "$packdir/$tarball" node_modules/.cache/pulumi-mgmt/pulumi-mgmt.tgz
rm -rf "$packdir"

bin=$(bash scripts/ensure-pulumi.sh | tail -n 1)
mkdir -p node_modules/.cache/pulumi-mgmt
echo "$bin" > node_modules/.cache/pulumi-mgmt/cli-dir
echo "[setup] Pulumi CLI: $bin ($("$bin/pulumi" version))" >&2
