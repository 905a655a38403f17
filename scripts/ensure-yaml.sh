#!/usr/bin/env bash
# Makes Pulumi's YAML language host (`pulumi-language-yaml`) available without downloading
# anything but Go modules, for the YAML proofs of the `mgmt` plugin (test/e2e/pluginProofs.test.ts)
# and for users who write their programs in YAML on a machine with no plugin downloads.
#
# usage: ensure-yaml.sh CLI_DIR   (the folder of the `pulumi` that will run YAML programs)
#
# The engine looks for its YAML host beside `pulumi` first (Pulumi's releases bundle it there) and
# on PATH after, with a warning on every run. So: one beside the CLI is used as it is; else a cached
# build in ${PULUMI_MGMT_CACHE:-~/.cache/pulumi-mgmt}/pulumi-language-yaml-<version>, or a fresh
# one, is linked beside the CLI when its folder is writable. Prints the folder that holds
# `pulumi-language-yaml` on its last line of stdout (progress goes to stderr).
set -euo pipefail
cli_dir=${1:?usage: ensure-yaml.sh CLI_DIR}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The newest pulumi-yaml the module proxy serves whose code compiles against the Pulumi modules
# it pins (v1.37.0 pins pkg v3.247.0 but needs newer APIs; v1.38.1 pins v3.255.0). In this
# repository's checkout it is built in the Go workspace (go.work) at the version
# scripts/gotools/go.mod pins, where the CLI's build left most of what it compiles (half a minute
# instead of three); elsewhere with its own go.mod (`go install`).
pinned=
[ -f "$here/go.work" ] && pinned=$(sed -n 's#^[[:space:]]*github.com/pulumi/pulumi-yaml \(v[0-9][0-9.]*\)$#\1#p' "$here/scripts/gotools/go.mod" | head -n1)
version=${PULUMI_MGMT_YAML_VERSION:-${pinned:-v1.38.1}}
module=github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml

log() { printf '[ensure-yaml] %s\n' "$*" >&2; }
die() { printf '[ensure-yaml] error: %s\n' "$*" >&2; exit 1; }
# GOGC, and the Go environment of a workspace or a module build (go-env.sh).
. "$here/scripts/go-env.sh"

if [ -x "$cli_dir/pulumi-language-yaml" ]; then
  log "using pulumi-language-yaml beside the CLI ($cli_dir)"
  echo "$cli_dir"
  exit 0
fi

# Beside the CLI when its folder takes it (a cached CLI build does; a system one may not).
place() {
  if [ -w "$cli_dir" ] && { ln -f "$dest/pulumi-language-yaml" "$cli_dir/" 2>/dev/null || cp "$dest/pulumi-language-yaml" "$cli_dir/"; }; then
    echo "$cli_dir"
  else
    log "$cli_dir is not writable: put $dest on PATH (the engine then warns that it uses pulumi-language-yaml from PATH)"
    echo "$dest"
  fi
}

cache_root=${PULUMI_MGMT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-mgmt}
dest="$cache_root/pulumi-language-yaml-$version"
if [ -x "$dest/pulumi-language-yaml" ]; then
  log "using cached pulumi-language-yaml $version ($dest)"
  place
  exit 0
fi

command -v go >/dev/null 2>&1 || die "no pulumi-language-yaml on PATH and no Go toolchain to build one: install Go 1.25+ (or put pulumi-language-yaml on PATH)"
rm -rf "$dest.partial"
mkdir -p "$dest.partial"
if [ -n "$pinned" ] && [ "$version" = "$pinned" ]; then
  log "building pulumi-language-yaml $version in this checkout's Go workspace (first run only; about half a minute after the CLI's build)"
  (workspace_go_env "$here" && cd "$here/scripts/gotools" \
    && go build -trimpath -ldflags "-s -w" -o "$dest.partial/pulumi-language-yaml" "$module" >&2) \
    || die "could not build $module@$version (see above)"
else
  log "building pulumi-language-yaml $version from Go modules (first run only; about three minutes on 2 cores)"
  # `go install module@version` builds with the module's own go.mod, as its release does.
  (module_go_env github.com/pulumi/pulumi,github.com/pulumi/pulumi-yaml \
    && GOBIN="$dest.partial" go install -trimpath -ldflags "-s -w" "$module@$version" >&2) \
    || die "could not build $module@$version (see above)"
fi
rm -rf "$dest"
mv "$dest.partial" "$dest"
log "built pulumi-language-yaml $version in $dest"
place
