#!/usr/bin/env bash
# The whole process, as a user feels it (docs/benchmarks.md "The whole
# process"): `kbt run` of the SMA cross (fast 5..100, slow 20..400 step 5, fast
# < slow: 6,695 combos) on BARS bars against the hand-written single-purpose
# program (bench_hand_process: the same data file, running-sum SMAs, the lean
# Sharpe-only loop) on the same space, each timed as a process by GNU time,
# REPS times alternately; prints the best (lowest) wall times and their ratio.
#
#   benchmarks/whole_process.sh [BUILD_DIR] [DEVICE] [BARS] [REPS]
set -euo pipefail
build=${1:-build}
device=${2:-serial}
bars=${3:-100000}
reps=${4:-3}
kbt="$build/src/kbt"
hand="$build/benchmarks/bench_hand_process"
for b in "$kbt" "$hand"; do [[ -x $b ]] || { echo "whole_process.sh: $b not built" >&2; exit 2; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$kbt" data synth --out "$work/d.h5" --symbols 1 --bars "$bars" --freq 1h --seed 5 >/dev/null
source "$(dirname "$0")/sma_cross_config.sh"
sma_cross_config d.h5 "[5, 100, 1]" "[20, 400, 5]" '"fast < slow"' >"$work/c.yaml"
seconds() { /usr/bin/time -f %e -o "$work/t" "$@" >/dev/null 2>&1; cat "$work/t"; }
best_kbt=999999 best_hand=999999
for ((i = 0; i < reps; i++)); do
  rm -f "$work"/r.h5*
  k=$(seconds "$kbt" run "$work/c.yaml" --device "$device" --no-verify --quiet --out "$work/r.h5")
  h=$(seconds "$hand" "$work/d.h5" 5 100 1 20 400 5)
  echo "repetition $((i + 1)): kbt run $k s, hand-written $h s"
  best_kbt=$(echo "if ($k < $best_kbt) $k else $best_kbt" | bc -l)
  best_hand=$(echo "if ($h < $best_hand) $h else $best_hand" | bc -l)
done
printf "best: kbt run %.2f s, hand-written %.2f s, ratio hand / kbt %.2f\n" "$best_kbt" "$best_hand" \
  "$(echo "$best_hand / $best_kbt" | bc -l)"
