#!/usr/bin/env bash
# The README's main command: installs dependencies, builds, and runs the main job
# on the bundled sample data (an SMA-cross sweep; results in results/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/src/kbt info
./build/src/kbt data inspect data/sample.h5
./build/src/kbt run configs/sma_cross.yaml --profile
