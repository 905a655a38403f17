#!/usr/bin/env bash
# `npm run bench:profile`: CPU per process of an `up` of N (default 200) sleep-only resources and
# of N search indexes, one run each, to trace where `npm run bench`'s gap is paid (issue 13).
# Every Node process runs under V8's profiler (bench/profile/preload.cjs); the engine under the
# CLI's own --profiling, through a wrapper CLI folder. Needs `go` (already needed to build the CLI)
# for `go tool pprof`. Prints a table; the profiles stay in the folder it names, for pprof or
# Chrome's DevTools. Nothing is written to docs/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh

out=$(mktemp -d "${TMPDIR:-/tmp}/pulumi-mgmt-profile-XXXXXX")
real=$(cat node_modules/.cache/pulumi-mgmt/cli-dir)
mkdir -p "$out/cli/bin"
for f in "$real"/*; do ln -s "$f" "$out/cli/bin/"; done
rm "$out/cli/bin/pulumi"
# Only `up` is profiled; `destroy` and the rest run as they are.
cat > "$out/cli/bin/pulumi" <<WRAPPER
#!/usr/bin/env bash
for a in "\$@"; do
  [ "\$a" = up ] && exec "$real/pulumi" --profiling "\$PULUMI_MGMT_PROFILE_DIR/engine-\$\$" "\$@"
done
exec "$real/pulumi" "\$@"
WRAPPER
chmod +x "$out/cli/bin/pulumi"

for variant in sleep index; do
  mkdir -p "$out/$variant"
  PULUMI_MGMT_PROFILE_DIR="$out/$variant" PULUMI_MGMT_CLI_DIR="$out/cli/bin" \
    NODE_OPTIONS="--require $PWD/bench/profile/preload.cjs" \
    N="${N:-200}" REPS=1 VARIANTS="$variant" node dist/bench/shape.js
done
node dist/bench/profile/summary.js "$out"
