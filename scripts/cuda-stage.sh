#!/usr/bin/env bash
# CI's CUDA stage (called by .ci/run; also runs alone; docs/building.md "CUDA
# in CI"). CI has nvcc but no GPU, so this stage compiles what a GPU would run
# and checks the sweep kernel's registers; it runs nothing on a device:
#  1. Kokkos 4.6.01 + Kokkos Kernels with CUDA (Serial + CUDA, sm_90) from the
#     release archives in shared/third-party/ into a cached prefix
#     (scripts/build-kokkos.sh; reused while its stamp matches);
#  2. kbt configured against it with nvcc_wrapper as the C++ compiler (the
#     first documented route; the other, Kokkos' launch compiler, cannot go
#     through a compiler cache: docs/building.md "CUDA"), in build-cuda/,
#     through ccache like every other build of CI;
#  3. the library, the CLI and the test binaries that launch kernels (the
#     `kokkos` areas of tests/CMakeLists.txt), the sweep-kernel instances with
#     ptxas' report (-DKBT_CUDA_PTXAS_REPORT=ON);
#  4. scripts/cuda-registers.sh on that report: exits 1 when a variant is over
#     the register budget or spills (docs/kernels.md "CUDA: registers and spills").
#
# Environment:
#   KBT_THIRD_PARTY        the archives (default: shared/third-party next to the repository)
#   KBT_KOKKOS_CUDA_CACHE  the Kokkos prefix (default /var/cache/kbt/kokkos-4.6.01-cuda)
#   KBT_SKIP_CUDA_STAGE=1  skip the stage (a machine without nvcc fails it otherwise)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/compiler-cache.sh

if [[ ${KBT_SKIP_CUDA_STAGE:-0} == 1 ]]; then
  echo "cuda-stage: skipped (KBT_SKIP_CUDA_STAGE=1)"
  exit 0
fi
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
command -v nvcc >/dev/null || {
  echo "cuda-stage: nvcc not found (install the CUDA toolkit, or set KBT_SKIP_CUDA_STAGE=1 to skip this stage)" >&2
  exit 1
}

stage=cuda-stage
source scripts/stage-common.sh
prefix=${KBT_KOKKOS_CUDA_CACHE:-/var/cache/kbt/kokkos-$kokkos_version-cuda}
build="build-cuda"
report="$build/ptxas"

timed "dependencies" bash scripts/install-deps.sh
timed "Kokkos + Kokkos Kernels with CUDA ($prefix)" kokkos_from_archives cuda "$prefix"
# Release: the instances' -O3 applies as in the README's build; no debug
# info, which nvcc makes slowly and nothing here reads.
timed "configure kbt" cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKokkos_ROOT="$prefix" -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DKBT_ENABLE_TESTS=ON -DKBT_ENABLE_BENCHMARKS=OFF \
  -DKBT_CUDA_PTXAS_REPORT=ON "${compiler_cache_args[@]}"

# The test binaries of the areas whose tests launch kernels, as CMake lists them.
areas=$(sed -nE 's/^set\(KBT_KOKKOS_TEST_AREAS (.*)\)$/\1/p' tests/CMakeLists.txt)
[[ -n $areas ]] || { echo "cuda-stage: no KBT_KOKKOS_TEST_AREAS in tests/CMakeLists.txt" >&2; exit 1; }
targets=(kbt kbt_cli)
for a in $areas; do targets+=("kbt_tests_$a"); done

# ninja prints each command's output in one piece, so ptxas' lines of an
# instance stay together in the log that cuda-registers.sh reads.
rm -rf "$report" && mkdir -p "$report"
build_targets() {
  local rc
  set +e
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" 2>&1 | tee "$report/ptxas_build.log" |
    grep --line-buffered -v -E '^ptxas info|^ +[0-9]+ bytes stack frame'
  rc=${PIPESTATUS[0]}
  set -e
  return "$rc"
}
timed "build ${targets[*]}" build_targets
grep -q 'Used [0-9]* registers' "$report/ptxas_build.log" || {
  # Instances compiled before (no output this time): compile them again for the report.
  touch src/sweep/instances/sweeper_cuda_*.cpp
  timed "recompile the CUDA instances for ptxas' report" build_targets
}
timed "register budget" env KBT_TABULATE_ONLY=1 bash scripts/cuda-registers.sh "$prefix" "$build" "$report"
