#!/usr/bin/env bash
# The first run on a machine with an NVIDIA GPU, prepared in one script
# (docs/gpu.md). Two steps:
#
#   scripts/device-check.sh bundle BUILD_DIR [BUNDLE_DIR]
#       On the build machine: copies a CUDA build's kbt, kbt_tests_sweep,
#       bench_sweep, kbt_tests_label, bench_label, kbt_tests_simulate and
#       bench_simulate, the shared libraries they load that a bare machine lacks
#       (HDF5, yaml-cpp, Google Benchmark, ...), and a manifest into
#       BUNDLE_DIR (default device-bundle/, ignored by git; must stay under
#       64 MiB to travel). BUILD_DIR: a kbt build against a CUDA Kokkos
#       (docs/building.md "CUDA"), with benchmarks.
#
#   scripts/device-check.sh run [BUNDLE_DIR] [REPORT_DIR]
#       On the GPU machine, from the repository root: checks that a GPU is
#       there (exit 3 with a report saying so when none is), then runs the
#       parity tests on the CUDA space, bench_sweep's scaling benchmarks
#       (1k ... 1M combos x 10k and 100k bars, fp64 and fp32, the kernel and
#       the hand-written CUDA loop in the same run), the labels' parity tests
#       and bench_label (kernel vs host loop), the action simulation's parity
#       tests and bench_simulate (256 trials x 300k bars: kernel vs host
#       loop), `kbt calibrate --quick`,
#       and `kbt run` of every example config on cuda, whose verification
#       compares every verified candidate by bits with the reference engine.
#       Writes REPORT_DIR/report.md (default device-report/) and the raw
#       outputs beside it. Sized for under 8 minutes on an H200.
#
# Environment: KBT_DEVICE_CHECK_QUICK=1 runs only the 1k and 10k combo
# benchmarks (a first look); KBT_DEVICE=cuda the device name (default cuda).
set -uo pipefail
cd "$(dirname "$0")/.."
prog=device-check
say() { echo "[$prog] $*"; }
die() { echo "[$prog] error: $*" >&2; exit 2; }

bundle() {
  local build=${1:-} out=${2:-device-bundle}
  [ -n "$build" ] || die "usage: scripts/device-check.sh bundle BUILD_DIR [BUNDLE_DIR]"
  local bins=("$build/src/kbt" "$build/tests/kbt_tests_sweep" "$build/benchmarks/bench_sweep"
    "$build/tests/kbt_tests_label" "$build/benchmarks/bench_label"
    "$build/tests/kbt_tests_simulate" "$build/benchmarks/bench_simulate")
  for b in "${bins[@]}"; do [ -x "$b" ] || die "$b not built (a CUDA build with benchmarks: docs/gpu.md)"; done
  # The Kokkos the build used says which devices it has (its KokkosConfigCommon.cmake).
  local kokkos_dir
  kokkos_dir=$(awk -F= '/^Kokkos_DIR:/ {print $2}' "$build/CMakeCache.txt" 2>/dev/null)
  grep -qE '^set\(Kokkos_DEVICES .*CUDA' "$kokkos_dir/KokkosConfigCommon.cmake" 2>/dev/null ||
    say "warning: $build does not look like a CUDA build (its Kokkos, ${kokkos_dir:-unknown}, lists no CUDA device)"
  rm -rf "$out" && mkdir -p "$out/bin" "$out/lib"
  cp "${bins[@]}" "$out/bin/"
  # Every shared library outside the C runtime and the GPU driver: a bare
  # machine has glibc and the driver (libcuda), not kbt's Debian libraries.
  for b in "${bins[@]}"; do
    ldd "$b" | awk '/=> \// {print $3}'
  done | sort -u | while read -r lib; do
    case $(basename "$lib") in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libcuda.so*) ;;
      *) cp -L "$lib" "$out/lib/" ;;
    esac
  done
  {
    echo "source_dir=$(awk -F= '/^CMAKE_HOME_DIRECTORY/ {print $2}' "$build/CMakeCache.txt")"
    echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  } >"$out/MANIFEST"
  # Debug info is most of a RelWithDebInfo build's size (369 MiB -> 59 MiB for
  # a Serial build); the copies lose it, the build keeps it.
  if command -v strip >/dev/null; then
    chmod u+w "$out"/bin/* "$out"/lib/*
    strip --strip-debug "$out"/bin/* "$out"/lib/* 2>/dev/null || say "warning: strip failed on some files"
  fi
  local size
  size=$(du -sm "$out" | cut -f1)
  say "bundle $out: ${size} MiB ($(ls "$out/lib" | wc -l) libraries)"
  ((size <= 64)) || say "warning: over 64 MiB even stripped: it cannot travel; bundle fewer programs"
}

# The universe example (configs/universe_momentum.yaml): its data as the
# config's comment makes it, the config pointed at it, without verification,
# then its run as a step (`step` is run's).
universe() {
  local bin=$1 report=$2 device=$3
  "$bin/kbt" data synth --symbols 500 --bars 5000 --freq 1d --seed 3 --listings 0.3 --venues binance,okx \
    --out "$report/universe500.h5" >"$report/universe_data.txt" 2>&1 ||
    { echo "| universe_500 | failed (data synth) | - |" >>"$report/report.md"; return 1; }
  sed -e "s#^data: .*#data: universe500.h5#" -e "s#^output: .*#output: {path: universe500_results.h5}#" \
    configs/universe_momentum.yaml >"$report/universe_momentum.yaml"
  echo "verify: {top_n: 0}" >>"$report/universe_momentum.yaml"
  step universe_500 120 "$bin/kbt" run "$report/universe_momentum.yaml" --device "$device" --profile
}

run() {
  local bundle_dir=${1:-device-bundle} report=${2:-device-report} device=${KBT_DEVICE:-cuda}
  mkdir -p "$report"
  local md="$report/report.md" t0=$SECONDS
  {
    echo "# kbt device check"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ), host $(hostname)"
    [ -f "$bundle_dir/MANIFEST" ] && sed 's/^/- bundle /' "$bundle_dir/MANIFEST"
  } >"$md"
  # 1. A GPU, or a clear stop.
  if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >"$report/gpus.txt" 2>&1; then
    { echo; echo "**No NVIDIA GPU present** (nvidia-smi: $(command -v nvidia-smi >/dev/null && head -1 "$report/gpus.txt" || echo 'not installed')): nothing was run."; } >>"$md"
    say "no NVIDIA GPU present: see $md"
    return 3
  fi
  { echo "- GPU: $(head -1 "$report/gpus.txt")"; nvidia-smi --query-gpu=driver_version,memory.total --format=csv,noheader | sed 's/^/- driver, memory: /'; } >>"$md"
  [ -d "$bundle_dir/bin" ] || die "no bundle at $bundle_dir (scripts/device-check.sh bundle on the build machine)"
  export LD_LIBRARY_PATH="$PWD/$bundle_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local bin="$bundle_dir/bin"
  # The binaries find configs/ and data/ where they were built: point that path here.
  local src
  src=$(awk -F= '/^source_dir=/ {print $2}' "$bundle_dir/MANIFEST" 2>/dev/null)
  if [ -n "$src" ] && [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"; fi

  step() {  # step NAME SECONDS CMD...: runs CMD with a time limit, notes the outcome
    local name=$1 limit=$2 s=$SECONDS; shift 2
    say "$name"
    timeout "$limit" "$@" >"$report/$name.txt" 2>&1
    local rc=$?
    echo "| $name | $([ $rc -eq 0 ] && echo ok || echo "failed (exit $rc)") | $((SECONDS - s)) s |" >>"$md"
    return $rc
  }
  { echo; echo "| step | outcome | time |"; echo "|---|---|---|"; } >>"$md"
  step info 30 "$bin/kbt" info
  step parity 150 "$bin/kbt_tests_sweep" --gtest_filter='*SweepParity*:*MetricSets*:*SpaceSweep*:*SweepEngine*:*SweepDriver*:*DeviceTopK*'
  local combos='(1000|10000|100000|1000000)'
  [ "${KBT_DEVICE_CHECK_QUICK:-0}" = 1 ] && combos='(1000|10000)'
  step scaling 240 "$bin/bench_sweep" "--benchmark_filter=scaling/(sweep_kernel|hand_written)/$device/.*/${combos}_combos/" \
    --benchmark_min_time=0.2 --benchmark_out="$report/scaling.json" --benchmark_out_format=json
  # The kernel against the independently written loop of the same strategy on
  # the same device (benchmarks/independent_sma_cross.hpp; docs/benchmarks.md).
  step independent 90 "$bin/bench_sweep" \
    "--benchmark_filter=^(independent/kokkos_lambda/$device|sweep_kernel/sma_cross/$device/fp64/sharpe)/" \
    --benchmark_min_time=0.2 --benchmark_out="$report/independent.json" --benchmark_out_format=json
  # A universe (docs/benchmarks.md "Symbols"): cross-sectional momentum, 48
  # combos over 500 synthetic symbols x 5,000 daily bars, listings included.
  universe "$bin" "$report" "$device"
  step label_parity 60 "$bin/kbt_tests_label"
  step label_bench 60 "$bin/bench_label" --benchmark_min_time=0.2
  step simulate_parity 60 "$bin/kbt_tests_simulate"
  # 300k bars; 256 trials keep the single-threaded host loop near 15 s an iteration.
  step simulate_bench 150 env KBT_BENCH_TRIALS=256 KBT_BENCH_BARS=300000 "$bin/bench_simulate" \
    --benchmark_min_time=0.01
  step calibrate 120 "$bin/kbt" calibrate --quick --out "$report/calibration.yaml"
  for cfg in configs/*.yaml; do
    local name
    name=$(basename "$cfg" .yaml)
    [ "$name" = universe_momentum ] && continue  # its data is made above (universe_500)
    if grep -qE '^job: (label|simulate)' "$cfg"; then  # no combos to sample
      step "run_$name" 60 "$bin/kbt" run "$cfg" --device "$device" --profile --out "$report/$name.h5"
    else
      step "run_$name" 60 "$bin/kbt" run "$cfg" --device "$device" --sample 512 --seed 1 --profile --out "$report/$name.h5"
    fi
  done
  # The ratios of the scaling benchmarks: kernel over the hand-written loop of the same set.
  if [ -f "$report/scaling.json" ] && command -v python3 >/dev/null; then
    python3 - "$report/scaling.json" >>"$md" <<'EOF'
import json, re, sys
rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    m = re.match(r"scaling/(sweep_kernel|hand_written)/(\w+)/(?:(fp64|fp32)/)?(\w+)/(\d+)_combos/(\d+)", b["name"])
    if m: rows[(m.group(1), m.group(3) or "fp64", m.group(4), m.group(5), m.group(6))] = b["bar_combos_per_s"]
print("\n| combos | bars | set | kernel fp64 (bar-combos/s) | kernel fp32 | hand-written fp64 | ratio fp64 |\n|---|---|---|---|---|---|---|")
for (kind, prec, s, c, bars), v in sorted(rows.items(), key=lambda kv: (int(kv[0][4]), int(kv[0][3]), kv[0][2])):
    if kind != "sweep_kernel" or prec != "fp64": continue
    f32 = rows.get(("sweep_kernel", "fp32", s, c, bars)); hand = rows.get(("hand_written", "fp64", s, c, bars))
    print(f"| {c} | {bars} | {s} | {v:.3g} | {f32 and f'{f32:.3g}'} | {hand and f'{hand:.3g}'} | {hand and f'{v / hand:.2f}'} |")
EOF
  fi
  echo "- total: $((SECONDS - t0)) s" >>"$md"
  say "report: $md"
}

case ${1:-} in
  bundle) shift; bundle "$@" ;;
  run) shift; run "$@" ;;
  *) die "usage: scripts/device-check.sh bundle BUILD_DIR [BUNDLE_DIR] | run [BUNDLE_DIR] [REPORT_DIR]" ;;
esac
