# How this package's scripts run Go, said once. Sourced by every script that builds Go
# (ensure-pulumi.sh, ensure-yaml.sh, gen-sdk.sh) and by .ci/run; shipped in the npm package beside
# ensure-pulumi.sh, which builds the CLI from there too. Run as a command,
#   bash scripts/go-env.sh --workspace ROOT
# it prints the variables of a Go command in ROOT's workspace, one NAME=value a line, for the
# tests' own Go builds (test/support/goWorkspace.ts).

# Go's compiler and linker collect their garbage a quarter as often as by default (a GOGC the user
# set wins): a build from an empty cache takes about a sixth less time on 2 cores, for more memory
# (CONTRIBUTING.md, "The suite's time").
export GOGC=${GOGC:-400}

# The CLI and the language hosts link with -s -w, which drops DWARF: the compiler makes none
# either, about a twelfth less CPU for a build from an empty cache, for the same binaries. One
# flag for every build, here: the build cache is shared only between builds with the same flags.
GO_NO_DWARF="-gcflags=all=-dwarf=false"

# Go in a checkout's workspace (ROOT/go.work: one module graph for every Go program the repository
# builds): its pins, no -mod=mod (which workspace mode refuses). The checksum database does not
# answer for every pulumi module through the registry mirror; the modules still come over TLS from
# the module proxy.
workspace_go_env() {
  local root
  root=$(cd "$1" && pwd) || return 1 # Go takes only an absolute GOWORK
  export GOWORK="$root/go.work" GOFLAGS="$GO_NO_DWARF" GOTOOLCHAIN=${GOTOOLCHAIN:-local}
  export GONOSUMDB="${GONOSUMDB:+$GONOSUMDB,}github.com/pulumi"
}

# Outside a workspace (the npm package's build, `go install module@version`): each module's own
# go.mod, completed as needed; the checksum database skipped for the modules given (comma-separated).
module_go_env() {
  export GOWORK=off GOFLAGS="-mod=mod $GO_NO_DWARF" GOTOOLCHAIN=${GOTOOLCHAIN:-local}
  export GONOSUMDB="${GONOSUMDB:+$GONOSUMDB,}$1"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  [ "${1:-}" = "--workspace" ] && [ -n "${2:-}" ] || {
    echo "usage: bash scripts/go-env.sh --workspace ROOT" >&2
    exit 2
  }
  workspace_go_env "$2"
  for name in GOWORK GOFLAGS GOTOOLCHAIN GONOSUMDB GOGC; do printf '%s=%s\n' "$name" "${!name}"; done
fi
