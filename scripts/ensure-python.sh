#!/usr/bin/env bash
# Makes a Python virtual environment with the generated Python SDK (sdk/python, `pulumi_mgmt`)
# installed by pip, with the `pulumi` package from PyPI at the version sdk/python/pyproject.toml
# asks for: what the Python proof of the `mgmt` plugin runs on (test/python/proof.py).
#
# usage: ensure-python.sh [CLI_DIR]
#
# With CLI_DIR (the folder of the `pulumi` that runs Python projects), also this repository's small
# Python language host (scripts/pylanghost) beside that CLI, for `runtime: python` projects, unless
# Pulumi's own `pulumi-language-python` is there already (a Pulumi release bundles it).
#
# The environment is kept in ${PULUMI_MGMT_CACHE:-~/.cache/pulumi-mgmt}/python-<hash>, the hash of
# sdk/python's files and the interpreter's version: unchanged, it is reused as it is. The
# interpreter is $PULUMI_MGMT_PYTHON, else python3. Prints the environment's folder on its last
# line of stdout (progress goes to stderr); its interpreter is <folder>/bin/python.
set -euo pipefail
cli_dir=${1:-}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf '[ensure-python] %s\n' "$*" >&2; }
die() { printf '[ensure-python] error: %s\n' "$*" >&2; exit 1; }

python=${PULUMI_MGMT_PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 || die "no $python >= 3.9 on PATH: install Python 3.9 or newer (or set PULUMI_MGMT_PYTHON to one)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null \
  || die "$python is $("$python" --version 2>&1), older than 3.9 (sdk/python's requires-python): install Python 3.9 or newer (or set PULUMI_MGMT_PYTHON to one)"
"$python" -c 'import venv, ensurepip' 2>/dev/null \
  || die "$python has no venv module with pip (ensurepip): install it (Debian: apt-get install python3-venv)"

sdk="$here/sdk/python"
[ -f "$sdk/pyproject.toml" ] || die "no $sdk/pyproject.toml: run this from a checkout of pulumi-mgmt"
# What pip builds into the folder (build/, *.egg-info) is no input: it is left out of the hash and
# of the copy pip builds from, so that sdk/python stays as generated.
sdk_files() {
  (cd "$sdk" && find . -type f ! -path '*/__pycache__/*' ! -path './build/*' ! -path '*.egg-info/*' ! -path './dist/*' | LC_ALL=C sort)
}
hash=$({
  "$python" -c 'import sys; print(sys.version)'
  (cd "$sdk" && sdk_files | xargs -d '\n' sha256sum)
} | sha256sum | cut -c1-16)

cache_root=${PULUMI_MGMT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-mgmt}
dest="$cache_root/python-$hash"

# The host: a copy of scripts/pylanghost in the cache (by its files' hash; a checkout may move),
# linked beside the CLI, where the engine looks first (from PATH it warns on every run).
place_host() {
  [ -n "$cli_dir" ] || return 0
  local beside="$cli_dir/pulumi-language-python" target
  if [ -e "$beside" ] && ! readlink "$beside" | grep -q "/pulumi-language-python-host-[0-9a-f]*/"; then
    log "using the pulumi-language-python beside the CLI ($cli_dir)"
    return 0
  fi
  local host_hash
  host_hash=$(cat "$here/scripts/pylanghost/pulumi-language-python" "$here/scripts/pylanghost/host.py" | sha256sum | cut -c1-16)
  target="$cache_root/pulumi-language-python-host-$host_hash"
  if [ ! -x "$target/pulumi-language-python" ]; then
    mkdir -p "$cache_root"
    rm -rf "$target.partial.$$"
    cp -R "$here/scripts/pylanghost" "$target.partial.$$"
    mv -T "$target.partial.$$" "$target" 2>/dev/null || rm -rf "$target.partial.$$"
  fi
  [ "$(readlink "$beside" 2>/dev/null)" = "$target/pulumi-language-python" ] && return 0
  if [ -w "$cli_dir" ] && ln -sfn "$target/pulumi-language-python" "$beside.$$" && mv -T "$beside.$$" "$beside"; then
    log "linked the Python language host (scripts/pylanghost) beside the CLI ($cli_dir)"
  else
    rm -f "$beside.$$"
    log "$cli_dir is not writable: put $target on PATH for runtime: python projects (the engine then warns that it uses pulumi-language-python from PATH)"
  fi
}
# A virtual environment is not relocatable (its scripts name its folder), so it is made in place and
# marked complete last; a lock keeps two callers from building the same one at once.
ready() { [ -f "$dest/.complete" ] && [ -x "$dest/bin/python" ]; }
if ready; then
  log "using the cached Python environment ($dest)"
  place_host
  echo "$dest"
  exit 0
fi
mkdir -p "$cache_root"
exec 9>"$dest.lock"
if ! flock -n 9; then
  log "waiting for another process that is making $dest"
  flock 9
fi
if ready; then
  log "using the Python environment another process made ($dest)"
  place_host
  echo "$dest"
  exit 0
fi

rm -rf "$dest"
log "making a virtual environment with $("$python" --version 2>&1) in $dest"
"$python" -m venv "$dest" >&2 || die "could not make a virtual environment in $dest (see above)"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
sdk_files | tar -C "$sdk" -cf - --files-from=- | tar -C "$src" -xf -
log "installing sdk/python and its dependencies (pulumi, grpcio, protobuf) from PyPI with pip (first run only; up to two minutes when pip has nothing cached)"
"$dest/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$src" >&2 \
  || die "pip could not install sdk/python into $dest (pip's reason is above)"
"$dest/bin/python" -c 'import pulumi_mgmt, pulumi.automation' \
  || die "sdk/python installed into $dest but does not import (the reason is above)"
touch "$dest/.complete"
place_host
log "installed pulumi_mgmt with pulumi $("$dest/bin/python" -c 'from importlib.metadata import version; print(version("pulumi"))') in $dest"
echo "$dest"
