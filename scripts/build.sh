#!/usr/bin/env bash
# The compiled package: dist/ from the TypeScript sources, and the plugin's one-file bundle.
# `npm pack` runs it first (package.json "prepack"), so a package packed from a clean checkout
# after `npm ci` holds what it runs; scripts/setup.sh runs it too. Skipped when dist/.compiled
# holds the content hash of the sources it was made from (scripts/source-hash.js).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[ -d node_modules/typescript ] || { echo "[build] dependencies missing: run 'npm ci' first" >&2; exit 1; }
hash=$(node scripts/source-hash.js)
if [ "$(cat dist/.compiled 2>/dev/null)" = "$hash" ]; then
  echo "[build] dist/ is up to date" >&2
  exit 0
fi
# Say what the silence is for: the first compile takes half a minute or more on a small machine.
sources=$(find provider emulator fleet scripts bench -name '*.ts' ! -name '*.d.ts' -not -path '*/dist/*' | wc -l | tr -d ' ')
echo "[build] compiling the package's TypeScript to dist/ ($sources files of provider/, emulator/, fleet/, scripts/, bench/; the first time takes up to a minute)" >&2
rm -rf dist
npx --no-install tsc -p tsconfig.build.json
node dist/scripts/argDocs.js       # each input's description, from its schema, as a doc comment TypeScript users read
node dist/scripts/bundlePlugin.js # the plugin in one file: dist/provider/plugin/main.bundle.js, its licenses beside it
chmod +x dist/emulator/cli.js dist/provider/cli/recover.js dist/provider/cli/template.js dist/fleet/cli.js dist/provider/plugin/start.js 2>/dev/null || true

# The emulator and the fleet are packages of their own (npm workspaces, linked into node_modules
# by npm ci): each gets its folder of dist/ and the license. Both import pulumi-mgmt by name
# (pulumi-mgmt/internal/*: the wire schemas, the automation helpers), a peer.
echo "[build] staging the packages pulumi-mgmt-emulator (emulator/dist) and pulumi-mgmt-fleet (fleet/dist)" >&2
rm -rf emulator/dist fleet/dist
cp dist/emulator/needsPulumiMgmt.js dist/fleet/   # one source for both commands' peer check
cp -R dist/emulator emulator/dist
cp -R dist/fleet fleet/dist
cp LICENSE emulator/LICENSE
cp LICENSE fleet/LICENSE
# Last, and the hash from before the compile: a source edited meanwhile means the next run compiles again.
echo "$hash" > dist/.compiled
