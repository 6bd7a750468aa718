#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer build of kbt into ./build-asan
# (-O1 -g1: line tables are all a report needs, and they build and link faster),
# then the whole test suite. Any report stops the offending test (halt_on_error)
# and fails ctest. Extra arguments go to cmake configure
# (e.g. -DKokkos_ROOT=/opt/kokkos-omp). No suppressions are used.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/compiler-cache.sh
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DKBT_ENABLE_SANITIZERS=ON -DKBT_ENABLE_BENCHMARKS=OFF "${compiler_cache_args[@]}" "$@"
cmake --build build-asan -j"$(nproc)"
# allocator_may_return_null: libhdf5 asks malloc for impossible sizes on corrupt
# files (tests/bad_input, fuzz regressions) and handles the NULL it gets in
# production; ASan would abort instead. Every other report still halts.
export ASAN_OPTIONS="allocator_may_return_null=1:halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:strict_init_order=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# The `build` label (header self-containment, install + downstream) checks the
# build, not runtime behaviour; the normal stage runs it. So does `docs`: the
# documented examples are the README's build's (docs/testing.md), with time limits
# sized for it, not for -O1 with sanitizers.
ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -LE 'build|docs'
