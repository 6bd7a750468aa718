#!/usr/bin/env bash
# CI's OpenMP stage (called by .ci/run after scripts/test.sh; also runs alone):
# builds Kokkos 4.6.01 + Kokkos Kernels 4.6.01 (Serial + OpenMP) from the
# release archives in shared/third-party/ into a cached prefix
# (scripts/build-kokkos.sh; reused while its stamp matches), then configures
# and builds kbt against it in build-openmp/ and runs the tests labelled
# `kokkos` (the binaries that launch Kokkos kernels), which are registered at
# 1 and 2 OpenMP threads (docs/testing.md).
#
# Environment:
#   KBT_THIRD_PARTY        the archives (default: shared/third-party next to the repository)
#   KBT_KOKKOS_CACHE       the Kokkos prefix (default /var/cache/kbt/kokkos-4.6.01-openmp)
#   KBT_OPENMP_TEST_LABEL  ctest -L regex (default kokkos|host: the kokkos binaries at 1 and 2 threads, the host ones once)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/compiler-cache.sh

stage=openmp-stage
source scripts/stage-common.sh
prefix=${KBT_KOKKOS_CACHE:-/var/cache/kbt/kokkos-$kokkos_version-openmp}
label=${KBT_OPENMP_TEST_LABEL:-kokkos|host}
build="build-openmp"

# kbt's other dependencies (HDF5, yaml-cpp, GoogleTest, ...): a no-op when present.
timed "dependencies" bash scripts/install-deps.sh
timed "Kokkos + Kokkos Kernels ($prefix)" kokkos_from_archives openmp "$prefix"
timed "configure kbt" cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DKokkos_ROOT="$prefix" -DKBT_ENABLE_BENCHMARKS=OFF "${compiler_cache_args[@]}"
timed "build kbt" cmake --build "$build" -j"$(nproc)"
# --no-tests=error: a label that matches nothing must fail the stage, not pass it.
timed "test kbt (ctest -L '$label')" \
  ctest --test-dir "$build" -L "$label" --no-tests=error --output-on-failure -j2
