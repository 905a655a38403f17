#!/usr/bin/env bash
# Regenerates the SDKs of the `mgmt` plugin (sdk/go, sdk/python, sdk/dotnet, sdk/nodejs) from the
# package schema of the built package (provider/plugin/schema.ts, what the plugin's GetSchema
# serves), with Pulumi's own code generators (scripts/codegen). Run it after changing the schema:
#   npm run gen:sdk                      (= bash scripts/gen-sdk.sh)
#   bash scripts/gen-sdk.sh --out DIR    writes DIR/go, DIR/python, ... instead (test/unit/sdkFresh.test.ts)
#   --plugin-download-url URL            the schema's pluginDownloadURL for a release to another
#                                        address (scripts/release.ts), instead of the schema's own
# The generators are Go programs, built on first use in the repository's Go workspace (go.work:
# seconds once the CLI is built; modules from the module proxy) and cached by a checksum of their
# sources under ${PULUMI_MGMT_CACHE:-~/.cache/pulumi-mgmt}, where scripts/ensure-pulumi.sh keeps
# the Pulumi CLI.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "[gen-sdk] $*" >&2; }
die() { log "$*"; exit 1; }
# GOGC, and the Go environment of the workspace (go-env.sh).
. "$here/scripts/go-env.sh"

out="$here/sdk"
download_url=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
    --plugin-download-url) [ $# -ge 2 ] || die "--plugin-download-url needs a URL"; download_url=$2; shift 2 ;;
    *) die "unknown argument '$1' (usage: scripts/gen-sdk.sh [--out DIR] [--plugin-download-url URL])" ;;
  esac
done
mkdir -p "$out" && out=$(cd "$out" && pwd)

command -v go >/dev/null 2>&1 || die "no Go toolchain on PATH: the SDK generators (scripts/codegen) are Go programs; install Go 1.25+"

# The schema comes from dist/, as the plugin serves it: compile first when the sources changed.
node "$here/scripts/source-hash.js" --is-built "$here" || bash "$here/scripts/setup.sh"

# Both generators in one cache entry, keyed by every source they are built from (the workspace's too).
sum=$( (cd "$here/scripts/codegen" && find . -type f \( -name '*.go' -o -name 'go.mod' -o -name 'go.sum' -o -name '*.png' \) | LC_ALL=C sort \
  | xargs sha256sum; sha256sum "$here/go.work" "$here/scripts/gotools/go.mod") | sha256sum | cut -c1-16)
bin="${PULUMI_MGMT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-mgmt}/codegen-$sum"
if [ ! -x "$bin/codegen" ] || [ ! -x "$bin/codegen-dotnet" ]; then
  log "building the SDK generators (scripts/codegen; first run only, seconds after the CLI's build) into $bin"
  # In the repository's Go workspace (go.work), as scripts/ensure-pulumi.sh builds the CLI: the
  # same module graph and flags, so the build reuses what the CLI's compiled.
  workspace_go_env "$here"
  mkdir -p "$bin.partial"
  (cd "$here/scripts/codegen" && go build -trimpath -o "$bin.partial/codegen" .) || die "could not build scripts/codegen (see above)"
  (cd "$here/scripts/codegen/dotnet" && go build -trimpath -o "$bin.partial/codegen-dotnet" .) \
    || die "could not build scripts/codegen/dotnet (see above)"
  rm -rf "$bin" && mv "$bin.partial" "$bin"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node -e 'process.stdout.write(JSON.stringify(require(process.argv[1]).packageSchema(process.argv[2] || undefined), null, 2) + "\n")' \
  "$here/dist/provider/plugin/schema.js" "$download_url" > "$work/schema.json"
"$bin/codegen" -schema "$work/schema.json" -out "$out"
"$bin/codegen-dotnet" -schema "$work/schema.json" -out "$out/dotnet"
log "wrote $out/go, $out/python, $out/dotnet and $out/nodejs"
