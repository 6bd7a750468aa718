#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs the whole suite;
# then the same suite under AddressSanitizer + UBSan, then a short fuzz run of
# every input path (30 s per target). Set KBT_QUICK=1 to run the first stage only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh "$@"
ctest --test-dir build --output-on-failure -j"$(nproc)"
if [ "${KBT_QUICK:-0}" != "1" ]; then
  bash scripts/sanitize.sh "$@"
  bash scripts/fuzz.sh 30
fi
