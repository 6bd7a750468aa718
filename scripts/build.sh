#!/usr/bin/env bash
# Configures and builds kbt into ./build (extra arguments go to cmake configure,
# e.g. -DKokkos_ROOT=/opt/kokkos-omp).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build build -j"$(nproc)"
