#!/usr/bin/env bash
# Configures and builds kbt into ./build with the Python module (import kbt,
# docs/python.md) and MPI (mpirun kbt run, docs/mpi.md); extra arguments go to
# cmake configure, e.g. -DKokkos_ROOT=/opt/kokkos-omp or -DKBT_ENABLE_MPI=OFF.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/compiler-cache.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKBT_ENABLE_PYTHON=ON -DKBT_ENABLE_MPI=ON "${compiler_cache_args[@]}" "$@"
cmake --build build -j"$(nproc)"
