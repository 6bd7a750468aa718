#!/usr/bin/env bash
# The README's main command: installs dependencies, builds, and runs the main job
# on the bundled sample data (an SMA-cross sweep; results in results/).
# Only what the main job needs is installed and built (the library, the CLI,
# the Python module; Kokkos with OpenMP on first use): the tests and the
# benchmarks are scripts/test.sh's (docs/building.md "Fresh machine").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh main
bash scripts/build.sh -DKBT_ENABLE_TESTS=OFF -DKBT_ENABLE_BENCHMARKS=OFF
./build/src/kbt info
./build/src/kbt data inspect data/sample.h5
./build/src/kbt run configs/sma_cross.yaml --profile
