#!/usr/bin/env bash
# The README's main command: installs dependencies, builds, runs the main job
# on the bundled sample data.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/src/kbt info
