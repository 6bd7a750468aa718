#!/usr/bin/env bash
# Peak resident memory of a whole `kbt run` against the size of its grid
# (docs/benchmarks.md "Memory"): a sweep's rows stream to its checkpoint, so
# the peak should not grow with the combos. Runs 10^k combos x BARS bars
# (k = each EXPONENT given) of a three-param strategy (two SMA windows and a
# threshold) on DEVICE, and prints combos, wall seconds, peak RSS (GNU time
# and the run profile) and the results file's size. Outputs go to WORKDIR and
# are removed afterwards (10^8 combos write about 19 GB).
#
#   benchmarks/grid_memory.sh [BUILD_DIR] [DEVICE] [BARS] [WORKDIR] EXPONENT...
#   e.g. benchmarks/grid_memory.sh build serial 1000 /tmp/kbt-grid 6 7 8
set -euo pipefail
build=${1:-build}
device=${2:-serial}
bars=${3:-1000}
work=${4:-$(mktemp -d)}
shift $(($# < 4 ? $# : 4))
exponents=("$@")
((${#exponents[@]})) || exponents=(5 6)
kbt="$build/src/kbt"
[[ -x $kbt ]] || { echo "grid_memory.sh: $kbt not built" >&2; exit 2; }
mkdir -p "$work"
"$kbt" data synth --out "$work/synth.h5" --symbols 1 --bars "$bars" --freq 1h --seed 3 >/dev/null

printf "%-12s %10s %14s %14s %12s\n" combos seconds peak_rss_MB profile_rss_MB results_GB
for e in "${exponents[@]}"; do
  # 50 fast x 200 slow windows x 10^(e-4) thresholds.
  k=$((10 ** (e - 4)))
  cat >"$work/grid.yaml" <<EOF
data: synth.h5
strategy:
  params:
    fast: {range: [2, 51, 1]}
    slow: {range: [52, 251, 1]}
    k: {linspace: [-0.01, 0.01, $k]}
  signals:
    f: sma(close, fast)
    s: sma(close, slow)
  position: where(f > s * (1 + k), 1, -1)
simulation: {fee_bps: 1}
sweep: {max_combos: 1000000000, top_k: 100, objective: {metric: sharpe, min_trades: 5}}
verify: {top_n: 1000}
EOF
  rm -f "$work"/r.h5*
  /usr/bin/time -v -o "$work/time.txt" "$kbt" run "$work/grid.yaml" --device "$device" --quiet --profile \
    --out "$work/r.h5" >"$work/run.txt"
  rss_kb=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$work/time.txt")
  wall=$(awk '/Elapsed \(wall clock\)/ {print $NF}' "$work/time.txt")
  prof=$(awk '$1 == "host_peak_rss_bytes" {printf "%.1f", $2 / 1048576}' "$work/run.txt")
  size=$(stat -c %s "$work/r.h5")
  printf "%-12s %10s %14.1f %14s %12.2f\n" "$((50 * 200 * k))" "$wall" "$(echo "$rss_kb / 1024" | bc -l)" \
    "$prof" "$(echo "$size / 1000000000" | bc -l)"
  rm -f "$work"/r.h5* "$work"/r_*
done
