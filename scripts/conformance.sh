#!/usr/bin/env bash
# npm run conformance [-- --writes]
# The conformance suite (test/conformance) against the service named by MGMT_BASE_URL,
# MGMT_USERNAME, MGMT_PASSWORD, MGMT_MESSAGING_URL, MGMT_REGIONAL_MESSAGING_URL and
# MGMT_MESSAGING_TOKEN; read-only endpoints unless --writes. Without MGMT_BASE_URL: the emulator.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for arg in "$@"; do
  case "$arg" in
    --writes) export CONFORMANCE_WRITES=1 ;;
    *) echo "usage: npm run conformance [-- --writes]" >&2; exit 2 ;;
  esac
done
exec npx --no-install jest -c jest.conformance.config.js
