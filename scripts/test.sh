#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh "$@"
ctest --test-dir build --output-on-failure -j"$(nproc)"
