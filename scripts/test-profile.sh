#!/usr/bin/env bash
# npm run test:profile [-- JEST ARGS]: the test suite (or the files named) with, per file and per
# test, the time taken and the Pulumi engine operations run (up, preview, refresh, destroy,
# import; other CLI commands apart), the slowest first. A shim in front of the Pulumi CLI logs
# each command with the test that started it (test/support/profileTest.ts). The table is printed
# at the end and written to .test-profile.txt.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh --typecheck >&2
real=$(cat node_modules/.cache/pulumi-mgmt/cli-dir)
shim=$(mktemp -d "${TMPDIR:-/tmp}/pulumi-mgmt-profile.XXXXXX")
trap 'rm -rf "$shim"' EXIT
mkdir -p "$shim/bin"
for f in "$real"/*; do ln -s "$f" "$shim/bin/$(basename "$f")"; done
rm "$shim/bin/pulumi"
# bash by its path, not from PATH: the release tests run the CLI with a PATH of its own programs alone.
cat > "$shim/bin/pulumi" <<SH
#!$(command -v bash)
( IFS=\$'\t'; printf '%s\t%s\t%s\n' "\${PULUMI_MGMT_PROFILE_FILE:-}" "\${PULUMI_MGMT_PROFILE_TEST:-}" "\$*" >> "$shim/log" )
exec "$real/pulumi" "\$@"
SH
chmod +x "$shim/bin/pulumi"
PULUMI_MGMT_CLI_DIR="$shim/bin" PULUMI_MGMT_PROFILE_LOG="$shim/log" PULUMI_MGMT_PROFILE_OUT="$PWD/.test-profile.txt" \
  npx jest "$@" --reporters=default --reporters="$PWD/test/support/profileReporter.js"
