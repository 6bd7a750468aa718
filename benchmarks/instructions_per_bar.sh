#!/usr/bin/env bash
# Instructions per bar-combo of the SMA-cross sweep kernel and of the
# hand-written same-work loop (bench_sweep), counted by valgrind's callgrind.
# Unlike a timing, the count does not depend on what else the machine runs, so
# it shows what a change to the kernel costs or saves (docs/benchmarks.md).
#
#   benchmarks/instructions_per_bar.sh [BUILD_DIR] [BARS] [serial|openmp] [fp64|fp32] [all|sharpe|sharpe_drawdown]
#
# The last argument is the metric set (docs/metrics.md "Metric sets") of both
# the kernel and the same-work loop.
#
# Needs valgrind. Runs each benchmark for one timed iteration under callgrind,
# collecting only inside the kernel launch / the hand-written loop.
set -euo pipefail
build=${1:-build}
bars=${2:-10000}
space=${3:-serial}
precision=${4:-fp64}
set=${5:-all}
bench="$build/benchmarks/bench_sweep"
[[ -x $bench ]] || { echo "instructions_per_bar.sh: $bench not built" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instructions_per_bar.sh: valgrind not installed" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# count TOGGLE FILTER -> "<instructions> <iterations> <combos>"
count() {
  local log="$out/$2.log"
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect="$1" --callgrind-out-file="$out/$2.cg" \
    "$bench" --kokkos-num-threads=1 --benchmark_filter="$3" --benchmark_min_time=0.01 \
    --benchmark_counters_tabular=false >"$log" 2>&1
  local ir iters combos
  ir=$(callgrind_annotate "$out/$2.cg" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  iters=$(awk '$1 ~ /manual_time$/ {print $6; exit}' "$log")
  combos=$(grep -o 'combos=[0-9]*' "$log" | head -1 | cut -d= -f2)
  [[ -n $ir && -n $iters && -n $combos ]] || { echo "instructions_per_bar.sh: no result, see:" >&2; cat "$log" >&2; exit 1; }
  # A function the compiler inlined has no symbol to toggle on: nothing counted.
  ((${ir:-0} > combos * bars)) || { echo "instructions_per_bar.sh: nothing counted inside '$1' (inlined in this build?)" >&2; exit 1; }
  echo "$ir $iters $combos"
}

# Count inside the innermost function that holds the kernel in this build: one
# thread's combos (SweepFunctor::run_thread) where the compiler kept it a
# function of its own, else the launch (SweepLaunch), else the call that
# launches it (KernelSweeper::metrics_on_space, which also loads the combos:
# a few instructions per combo, not per bar).
symbols=$(nm -C "$bench")
kernel_fn=
for candidate in 'SweepFunctor<.*>::run_thread<@*SweepFunctor*run_thread*' 'kbt::SweepLaunch<@*SweepLaunch*' \
                 'KernelSweeper<.*>::metrics_on_space@*KernelSweeper*metrics_on_space*'; do
  if grep -Eq " [tTW] .*${candidate%%@*}" <<<"$symbols"; then
    kernel_fn=${candidate#*@}
    break
  fi
done
[[ -n $kernel_fn ]] || { echo "instructions_per_bar.sh: no kernel function found in $bench" >&2; exit 1; }
echo "counting inside $kernel_fn" >&2
read -r k_ir k_it combos < <(count "$kernel_fn" kernel "^sweep_kernel/sma_cross/$space/$precision/$set/$bars/")
read -r h_ir h_it _ < <(count '*hand_sma_cross_full*' hand "^hand_written_full/kokkos_lambda/$space/$set/$bars/")
# The kernel runs once untimed before the timed iterations (time_kernel_calls).
awk -v set="$set" -v k="$k_ir" -v kc="$((k_it + 1))" -v h="$h_ir" -v hc="$h_it" -v n="$combos" -v b="$bars" 'BEGIN {
  kpb = k / (kc * n * b); hpb = h / (hc * n * b);
  printf "metric set     %s\n", set;
  printf "sweep kernel   %7.1f instructions per bar-combo\n", kpb;
  printf "hand-written   %7.1f instructions per bar-combo (fp64)\n", hpb;
  printf "hand / kernel  %7.3f\n", hpb / kpb }'
