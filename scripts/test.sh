#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs the whole suite;
# then the same suite under AddressSanitizer + UBSan, then a short fuzz run of
# every input path (seeded, a fixed number of inputs per target). Set KBT_QUICK=1 to run the first stage only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh all
# Tests and benchmarks on explicitly: the build folder may be scripts/demo.sh's.
bash scripts/build.sh -DKBT_ENABLE_TESTS=ON -DKBT_ENABLE_BENCHMARKS=ON "$@"
ctest --test-dir build --output-on-failure -j"$(nproc)"
if [ "${KBT_QUICK:-0}" != "1" ]; then
  bash scripts/sanitize.sh "$@"
  FUZZ_DETERMINISTIC=1 bash scripts/fuzz.sh
fi
