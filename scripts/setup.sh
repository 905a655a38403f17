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
chmod +x dist/emulator/cli.js 2>/dev/null || true
touch dist/.built   # Jest's global setup compares this with the sources

# Programs in this repository (the root Pulumi.yaml, examples/, tests) import `pulumi-mgmt` exactly
# as a user's program does, and the dynamic provider loads its code by that name at run time.
ln -sfn .. node_modules/pulumi-mgmt

bin=$(bash scripts/ensure-pulumi.sh | tail -n 1)
mkdir -p node_modules/.cache/pulumi-mgmt
echo "$bin" > node_modules/.cache/pulumi-mgmt/cli-dir
echo "[setup] Pulumi CLI: $bin ($("$bin/pulumi" version))" >&2
