#!/usr/bin/env bash
# Configures and builds kbt into ./build with the Python module (import kbt,
# docs/python.md) and MPI (mpirun kbt run, docs/mpi.md); extra arguments go to
# cmake configure, e.g. -DKokkos_ROOT=/opt/kokkos-omp or -DKBT_ENABLE_MPI=OFF.
#
# Kokkos (docs/building.md "Every core"): unless the arguments choose one
# (-DKokkos_ROOT / -DKokkos_DIR), a Kokkos 3.4.01 with OpenMP built from
# Debian's source package (scripts/kokkos-from-debian.sh, cached), so that
# sweeps use every core. KBT_KOKKOS=debian takes Debian's Serial-only
# libtrilinos-kokkos-dev instead.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/compiler-cache.sh

kokkos_args=()
chosen=0
for a in "$@"; do
  case $a in -DKokkos_ROOT=*|-DKokkos_DIR=*) chosen=1 ;; esac
done
if [ "$chosen" = 0 ]; then
  case ${KBT_KOKKOS:-openmp} in
    openmp)
      prefix=$(bash scripts/kokkos-from-debian.sh | tail -1)
      # -U: a build folder configured with another Kokkos finds this one again.
      kokkos_args=(-DKokkos_ROOT="$prefix" -UKokkos_DIR -UKokkosKernels_DIR -DKBT_REQUIRE_SPACES=OPENMP) ;;
    debian)
      kokkos_args=(-UKokkos_ROOT -UKokkos_DIR -UKokkosKernels_DIR -DKBT_REQUIRE_SPACES=) ;;
    *) echo "build.sh: KBT_KOKKOS must be openmp or debian, not '$KBT_KOKKOS'" >&2; exit 2 ;;
  esac
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKBT_ENABLE_PYTHON=ON -DKBT_ENABLE_MPI=ON \
  "${compiler_cache_args[@]}" "${kokkos_args[@]}" "$@"
cmake --build build -j"$(nproc)"
