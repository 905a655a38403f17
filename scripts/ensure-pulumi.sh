#!/usr/bin/env bash
# Makes a Pulumi CLI available without downloading anything but Go modules.
#
# Prints the directory that holds `pulumi`, `pulumi-language-nodejs` and
# `pulumi-resource-pulumi-nodejs` on its last line of stdout (progress goes to stderr),
# so callers can do: PULUMI_BIN=$(scripts/ensure-pulumi.sh | tail -n1)
#
# Order of preference:
#   1. a `pulumi` on PATH whose version is at least the installed @pulumi/pulumi minor line;
#   2. a cached build in ${PULUMI_MGMT_CACHE:-~/.cache/pulumi-mgmt}/pulumi-v<version>/bin;
#   3. a fresh build with the Go toolchain: in this repository's checkout, from its Go workspace
#      (go.work) at the Pulumi version scripts/gotools/go.mod pins, the one module graph of every
#      Go program the repository builds; elsewhere (the npm package), at exactly the
#      @pulumi/pulumi version.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf '[ensure-pulumi] %s\n' "$*" >&2; }
# A caller that reports the failure itself (provider/automation/cli.ts: one line, as its own error)
# sets PULUMI_MGMT_ERROR_TO_STDOUT and reads the reason from stdout's last line.
die() {
  if [ -n "${PULUMI_MGMT_ERROR_TO_STDOUT:-}" ]; then printf '%s\n' "$*"; else printf '[ensure-pulumi] error: %s\n' "$*" >&2; fi
  exit 1
}
# GOGC, and the Go environment of a workspace or a module build (go-env.sh).
. "$here/scripts/go-env.sh"

# PULUMI_MGMT_SDK_DIR: the @pulumi/pulumi to match instead of this package's (the version matrix
# builds one CLI per SDK version a user's project may have).
if [ -n "${PULUMI_MGMT_SDK_DIR:-}" ]; then
  sdk_pkg="$PULUMI_MGMT_SDK_DIR/package.json"
  [ -f "$sdk_pkg" ] || die "PULUMI_MGMT_SDK_DIR=$PULUMI_MGMT_SDK_DIR holds no package.json"
else
  sdk_pkg=$(cd "$here" && node -e 'process.stdout.write(require.resolve("@pulumi/pulumi/package.json"))' 2>/dev/null) \
    || die "@pulumi/pulumi is not installed: run 'npm ci' first."
fi
sdk_dir=$(dirname "$sdk_pkg")
sdk_version=$(node -e 'process.stdout.write(require(process.argv[1]).version)' "$sdk_pkg")
want_minor=${sdk_version%.*}   # e.g. 3.248

# version_ge A B: true when dotted version A >= B.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

# The Pulumi version of this checkout's Go workspace (scripts/gotools/go.mod), if this is one.
workspace_version=
if [ -f "$here/go.work" ] && [ -f "$here/scripts/gotools/go.mod" ]; then
  workspace_version=$(sed -n 's#^[[:space:]]*github.com/pulumi/pulumi/pkg/v3 v\([0-9][0-9.]*\)$#\1#p' "$here/scripts/gotools/go.mod" | head -n1)
fi
# PULUMI_MGMT_CLI_VERSION: build this CLI version instead (the Go module proxy may not serve the
# SDK's own version yet; a CLI runs programs of other 3.x SDKs). In the workspace, for its own SDK,
# the workspace's version when it is at least the SDK's: a newer CLI runs the SDK's programs.
version=${PULUMI_MGMT_CLI_VERSION:-}
if [ -z "$version" ]; then
  if [ -z "${PULUMI_MGMT_SDK_DIR:-}" ] && [ -n "$workspace_version" ] && version_ge "$workspace_version" "$sdk_version"; then
    version=$workspace_version
  else
    version=$sdk_version
  fi
fi
# In the workspace every build is -trimpath: the build cache is shared only between builds with the
# same flags.
in_workspace() { [ -n "$workspace_version" ] && [ "$version" = "$workspace_version" ]; }

# 1. A CLI the user already has.
if [ "${PULUMI_MGMT_IGNORE_PATH_CLI:-}" != "1" ] && command -v pulumi >/dev/null 2>&1; then
  have=$(pulumi version 2>/dev/null | sed 's/^v//')
  if [ -n "$have" ] && version_ge "$have" "$want_minor.0"; then
    bin=$(dirname "$(command -v pulumi)")
    if [ -x "$bin/pulumi-language-nodejs" ] || command -v pulumi-language-nodejs >/dev/null 2>&1; then
      log "using pulumi $have from PATH ($bin)"
      echo "$bin"
      exit 0
    fi
    log "pulumi $have on PATH has no pulumi-language-nodejs beside it; using a built CLI instead"
  else
    log "pulumi on PATH is ${have:-of unknown version}, older than $want_minor; using a built CLI instead"
  fi
fi

# 2. A cached build.
cache_root=${PULUMI_MGMT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-mgmt}
dest="$cache_root/pulumi-v$version/bin"
install_plugin_script() {
  # The dynamic provider plugin is a shell script shipped in the npm package.
  cp "$sdk_dir/pulumi-resource-pulumi-nodejs" "$dest/pulumi-resource-pulumi-nodejs"
  chmod +x "$dest/pulumi-resource-pulumi-nodejs"
}
# The fallback language host (scripts/langhost) is built from this repository's sources: a cached
# one is rebuilt when they change. Its build records their checksum beside the binary.
langhost_sum() { cat "$here/scripts/langhost/main.go" "$here/scripts/langhost/go.mod" | sha256sum | cut -c1-16; }
build_langhost() { # $1: the folder to put pulumi-language-nodejs in
  if in_workspace; then
    (workspace_go_env "$here" && cd "$here/scripts/langhost" \
      && go build -trimpath -ldflags "-s -w -X main.version=v$version" -o "$1/pulumi-language-nodejs" . >&2) || return 1
    langhost_sum > "$1/.langhost-source"
    return 0
  fi
  local w
  w=$(mktemp -d)
  cp -r "$here/scripts/langhost" "$w/langhost"
  if ! (cd "$w/langhost" && go mod edit -require "github.com/pulumi/pulumi/sdk/v3@v$version" -require "github.com/pulumi/pulumi/pkg/v3@v$version" \
        && go build -trimpath -ldflags "-s -w -X main.version=v$version" -o "$1/pulumi-language-nodejs" . >&2); then
    # An older SDK lacks RPC types the host also implements; the host speaks both the old and the
    # new plugin protocol, so it is built against the SDK its own go.mod pins instead.
    log "scripts/langhost does not compile against sdk v$version; compiling it against the SDK its go.mod pins"
    rm -rf "$w/langhost" && cp -r "$here/scripts/langhost" "$w/langhost"
    (cd "$w/langhost" && go build -trimpath -ldflags "-s -w -X main.version=v$version" -o "$1/pulumi-language-nodejs" . >&2) || { rm -rf "$w"; return 1; }
  fi
  rm -rf "$w"
  langhost_sum > "$1/.langhost-source"
}
is_fallback_host() { command -v go >/dev/null 2>&1 && go version -m "$1" 2>/dev/null | grep -q "path[[:space:]]*pulumi-mgmt/langhost"; }

built() { [ -x "$dest/pulumi" ] && [ -x "$dest/pulumi-language-nodejs" ]; }
use_built() { # $1: whose build it is, for the log
  [ -x "$dest/pulumi-resource-pulumi-nodejs" ] || install_plugin_script
  if is_fallback_host "$dest/pulumi-language-nodejs" && [ "$(cat "$dest/.langhost-source" 2>/dev/null)" != "$(langhost_sum)" ]; then
    log "scripts/langhost changed since the cached build: rebuilding the language host"
    in_workspace || module_go_env github.com/pulumi/pulumi
    build_langhost "$dest" || die "could not rebuild scripts/langhost (see above)"
  fi
  log "using $1 pulumi v$version ($dest)"
  echo "$dest"
  exit 0
}
built && use_built cached

# 3. Build from Go modules.
command -v go >/dev/null 2>&1 || die "no Pulumi CLI found and no Go toolchain to build one: install the Pulumi CLI $want_minor or newer on PATH (https://www.pulumi.com/docs/install/), or Go 1.25+ to build pulumi v$version from Go modules"
# One build at a time: a second caller (npm test's setup while .ci/run builds the CLI beside the
# package's compile, or another process of a program) waits for the first and uses its CLI. (No
# flock, as on macOS: no waiting.)
if command -v flock >/dev/null 2>&1; then
  mkdir -p "$cache_root"
  exec 9>"$cache_root/pulumi-v$version.lock"
  if ! flock -n 9; then
    log "waiting for another process that is building pulumi v$version"
    flock 9
  fi
  built && use_built "the other process's"
fi

# The version variable lives in sdk/ since 3.1xx and in pkg/ before; -X on a missing one is ignored.
ldflags="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version -X github.com/pulumi/pulumi/pkg/v3/version.Version=v$version"

if in_workspace; then
  log "building pulumi v$version and scripts/langhost from this checkout's Go workspace (go.work; first run only: about 1.5 GB of Go modules and several minutes)"
  rm -rf "$dest.partial" && mkdir -p "$dest.partial"
  (workspace_go_env "$here" && cd "$here/scripts/gotools" \
    && go build -trimpath -ldflags "$ldflags" -o "$dest.partial/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2) \
    || die "could not build pulumi v$version (see above)"
  build_langhost "$dest.partial" || die "could not compile scripts/langhost (see above)"
  rm -rf "$dest"
  mv "$dest.partial" "$dest"
  install_plugin_script
  log "built $("$dest/pulumi" version) in $dest"
  echo "$dest"
  exit 0
fi

log "building pulumi v$version and pulumi-language-nodejs from Go modules (first run only; takes several minutes)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Outside the workspace: a module of its own, even when run from a checkout's node_modules.
module_go_env github.com/pulumi/pulumi
json_field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=process.argv[1].split(".").reduce((o,k)=>o&&o[k],JSON.parse(s));process.stdout.write(v==null?"":String(v))})' "$1"; }

# Non-local `replace` lines of a go.mod (local ones point into the pulumi repository itself).
copy_replaces() {
  awk '/^replace \(/{b=1;next} b&&/^\)/{b=0;next} b{print;next} /^replace /{sub(/^replace /,"");print}' "$1" \
    | grep -v '=> *\.' | while read -r line; do
      [ -n "$line" ] || continue
      left=$(echo "${line%%=>*}" | xargs); right=$(echo "${line#*=>}" | xargs)
      go mod edit -replace "${left// /@}=${right// /@}"
    done
}

# A pulumi binary a failed earlier run left in .partial is complete (it is written last by go build).
reuse_cli=
[ -x "$dest.partial/pulumi" ] && "$dest.partial/pulumi" version 2>/dev/null | grep -qx "v$version" && reuse_cli=1
[ -n "$reuse_cli" ] || rm -rf "$dest.partial"
mkdir -p "$work/cli" "$dest.partial"
cd "$work/cli"
go mod init pulumi-mgmt-cli-build >/dev/null 2>&1
log "downloading github.com/pulumi/pulumi/pkg/v3@v$version"
pkg=$(go mod download -json "github.com/pulumi/pulumi/pkg/v3@v$version" || true)
pkg_gomod=$(echo "$pkg" | json_field GoMod)
[ -n "$pkg_gomod" ] || die "could not download github.com/pulumi/pulumi/pkg/v3@v$version: $(echo "$pkg" | json_field Error)"
commit=$(echo "$pkg" | json_field Origin.Hash)
copy_replaces "$pkg_gomod"
go mod edit -require "github.com/pulumi/pulumi/pkg/v3@v$version" -require "github.com/pulumi/pulumi/sdk/v3@v$version"
printf 'package main\n\nimport _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"\n' > tools.go
quiet_tidy() { go mod tidy 2>&1 | { grep -v '^go: downloading' || true; } >&2; }
if [ -n "$reuse_cli" ]; then
  log "reusing pulumi v$version compiled by an earlier run"
else
  log "downloading the modules pulumi needs (about 1.5 GB the first time)"
  quiet_tidy
  log "compiling pulumi (the long part: about 5 minutes on 2 cores)"
  go build -trimpath -ldflags "$ldflags" -o "$dest.partial/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2
fi

# The upstream language host is its own module with no version tags: only a pseudo-version at the
# release commit names it, and not every module proxy serves that. Fall back to the small host in
# scripts/langhost, which implements what `pulumi up` of a Node.js program needs.
lang_mod=github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3
built_lang=
if [ -n "$commit" ]; then
  mkdir -p "$work/lang" && cd "$work/lang"
  go mod init pulumi-mgmt-lang-build >/dev/null 2>&1
  if lang=$(go mod download -json "$lang_mod@$commit" 2>/dev/null) && [ -n "$(echo "$lang" | json_field GoMod)" ]; then
    log "compiling upstream pulumi-language-nodejs at ${commit:0:12}"
    copy_replaces "$(echo "$lang" | json_field GoMod)"
    copy_replaces "$pkg_gomod"
    go mod edit -require "$lang_mod@$(echo "$lang" | json_field Version)" \
      -require "github.com/pulumi/pulumi/pkg/v3@v$version" -require "github.com/pulumi/pulumi/sdk/v3@v$version"
    printf 'package main\n\nimport _ "%s"\n' "$lang_mod" > tools.go
    quiet_tidy && go build -trimpath -ldflags "$ldflags" -o "$dest.partial/pulumi-language-nodejs" "$lang_mod" >&2 && built_lang=upstream
  fi
fi
if [ -z "$built_lang" ]; then
  log "upstream pulumi-language-nodejs is not served by the module proxy; compiling scripts/langhost instead"
  build_langhost "$dest.partial" || die "could not compile scripts/langhost (see above)"
fi

rm -rf "$dest"
mv "$dest.partial" "$dest"
install_plugin_script
log "built $("$dest/pulumi" version) in $dest"
echo "$dest"
