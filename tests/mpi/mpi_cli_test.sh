#!/usr/bin/env bash
# `mpirun kbt run` against one process (docs/mpi.md), run by ctest with
# KBT (the CLI), MPIEXEC (mpiexec and its flags, as one string),
# MPIEXEC_NUMPROC_FLAG (-n), SOURCE (the repository) and a scratch directory:
#   same CONFIG N DEVICE [CHUNK]
#                          N ranks write the single process's /combo_id,
#                          /params, /metrics, /topk and /verify, by value
#                          (h5diff); the profile's shares add up, and the
#                          output lists each rank's
#   walk_forward N         the same with a walk-forward validation (its
#                          ranking and folds shared too): /validation compared
#                          as well
#   holdout N              the same with a holdout validation (its candidates
#                          shared)
#   resume N M             N ranks, one killed mid-sweep: the run fails naming
#                          the rank, leaves a checkpoint, and M ranks resume it
#                          to the single process's results
#   hoisting N             each rank computes only the hoisted windows of the
#                          chunks it claims: with one window per chunk, a
#                          rank's series equal its chunks
#   bad_input N            a bad config: one report (by rank 0), every rank
#                          exits non-zero, nothing hangs
set -euo pipefail
: "${KBT:?}" "${MPIEXEC:?}" "${SOURCE:?}"
case_name=$1; shift
scratch=$(mktemp -d "${TMPDIR:-/tmp}/kbt-mpi-$case_name.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
read -r -a mpiexec <<<"$MPIEXEC"
np=${MPIEXEC_NUMPROC_FLAG:--n}

# The datasets of a results file that must not depend on the ranks.
compare() {  # compare A B
  local paths n=0
  paths=$(h5ls -r "$1" | awk '$2 == "Dataset" {print $1}' | grep -E '^/(combo_id|params/|metrics/|topk/|verify/|validation/)')
  [ -n "$paths" ] || { echo "no datasets to compare in $1" >&2; exit 1; }
  for p in $paths; do
    h5diff -q "$1" "$2" "$p" "$p" || { echo "differs: $p" >&2; h5diff "$1" "$2" "$p" "$p" | head -20 >&2; exit 1; }
    n=$((n + 1))
  done
  echo "same: $n datasets"
}

# A copy of configs/NAME whose data path works from the scratch directory.
config_copy() {
  sed "s#^data: \.\./#data: $SOURCE/#" "$SOURCE/configs/$1" >"$scratch/$1"
  echo "$scratch/$1"
}

case $case_name in
same)
  config=$(config_copy "$1"); n=$2; device=$3; chunk=${4:-8}
  threads=(); [ "$device" = reference ] && threads=(--threads 1)
  "$KBT" run "$config" --device "$device" --quiet --checkpoint-combos "$chunk" -o "$scratch/single.h5" >/dev/null
  "${mpiexec[@]}" "$np" "$n" "$KBT" run "$config" --device "$device" "${threads[@]}" --quiet --checkpoint-combos "$chunk" \
    --profile -o "$scratch/mpi.h5" >"$scratch/mpi.log"
  compare "$scratch/single.h5" "$scratch/mpi.h5"
  if [ "$n" -gt 1 ]; then
    # The profile names the ranks and their shares, which add up to the sweep.
    grep -E "mpi_ranks +$n\$" "$scratch/mpi.log"
    shares=$(awk '$1 == "mpi_rank_combos" {print $2}' "$scratch/mpi.log")
    total=$(awk '$1 == "mpi_combos_shared" {print $2}' "$scratch/mpi.log")
    echo "combos per rank: $shares of $total"
    [ "$(tr ',' '\n' <<<"$shares" | awk '{s += $1} END {print s}')" = "$total" ] || { echo "shares do not add up" >&2; exit 1; }
    # The run's own output names every rank and what it did (the profile's shares).
    grep -qx "shared by $n MPI ranks:" "$scratch/mpi.log" || { echo "no rank report in the output" >&2; exit 1; }
    listed=$(sed -nE "s/^  rank ([0-9]+): $device, ([0-9]+) combos in [0-9.]+ s\$/\2/p" "$scratch/mpi.log" | paste -sd,)
    [ "$listed" = "$shares" ] || { echo "the output lists '$listed', the profile '$shares'" >&2; exit 1; }
    # A slow sweep (the reference engine, one thread, small chunks) is shared
    # by more than one rank (fast ones may go to whoever starts first).
    if [ "$device" = reference ]; then
      [ "$(tr ',' '\n' <<<"$shares" | awk '$1 > 0' | wc -l)" -ge 2 ] || { echo "one rank did everything" >&2; exit 1; }
    fi
  elif grep -q "MPI ranks" "$scratch/mpi.log"; then
    echo "one rank reported as shared" >&2; exit 1
  fi
  ;;
walk_forward | holdout)
  config=$(config_copy sma_cross.yaml); n=$1
  if [ "$case_name" = walk_forward ]; then
    printf 'validation: {walk_forward: {train: 180d, test: 60d}, top_k: 5}\n' >>"$config"
  else
    printf 'validation: {holdout: 0.3, top_k: 7}\n' >>"$config"
  fi
  sed -i '/^sweep:/a\  checkpoint_combos: 8' "$config"  # the walk-forward's chunks too: shared
  "$KBT" run "$config" --device serial --quiet --checkpoint-combos 8 -o "$scratch/single.h5" >/dev/null
  "${mpiexec[@]}" "$np" "$n" "$KBT" run "$config" --device serial --quiet --checkpoint-combos 8 -o "$scratch/mpi.h5" \
    >/dev/null
  if [ "$case_name" = walk_forward ]; then
    [ "$(h5ls -r "$scratch/mpi.h5" | grep -c "^/validation/walk_forward/stitched_equity")" -eq 1 ] ||
      { echo "no walk-forward" >&2; exit 1; }
  else
    [ "$(h5ls -r "$scratch/mpi.h5" | grep -c "^/validation/test_metrics/sharpe")" -eq 1 ] || { echo "no holdout" >&2; exit 1; }
  fi
  compare "$scratch/single.h5" "$scratch/mpi.h5"
  ;;
resume)
  n=$1; m=$2
  "$KBT" data synth --out "$scratch/synth.h5" --symbols 1 --bars 50000 --freq 1h --seed 7 >/dev/null
  cat >"$scratch/cfg.yaml" <<YAML
data: synth.h5
strategy:
  params:
    fast: {range: [2, 40, 2]}
    slow: {range: [10, 200, 10]}
  constraints: ["fast < slow"]
  signals:
    f: ema(close, fast)
    s: sma(close, slow)
  position: where(f > s, 1, -1)
simulation: {fee_bps: 5}
sweep: {top_k: 25, checkpoint_combos: 4, objective: {metric: sharpe, min_trades: 5}}
verify: {top_n: 10}
YAML
  out=$scratch/r.h5
  "${mpiexec[@]}" "$np" "$n" "$KBT" run "$scratch/cfg.yaml" --device reference --threads 1 --quiet -o "$out" \
    >"$scratch/killed.log" 2>&1 &
  launcher=$!
  # Once some chunks are committed, kill the second rank.
  for _ in $(seq 1 400); do
    done_now=$(h5dump -a /combos_done "$out.partial.h5" 2>/dev/null | awk '/\(0\)/ {print $2}' || true)
    [ -n "$done_now" ] && [ "$done_now" -ge 8 ] && break
    sleep 0.05
  done
  # Rank 1 by its environment (mpiexec's own command line names kbt too).
  victim=""
  for pid in $(pgrep -f "^$KBT run $scratch/cfg.yaml"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then victim=$pid; fi
  done
  [ -n "$victim" ] || { echo "no rank 1 to kill (the run ended first?)" >&2; cat "$scratch/killed.log" >&2; exit 1; }
  kill -9 "$victim"
  if wait "$launcher"; then echo "the run survived a killed rank" >&2; exit 1; fi
  echo "--- the killed run:"; cat "$scratch/killed.log"
  grep -Eq "process rank 1 with PID [0-9]+ .*signal 9" "$scratch/killed.log" || { echo "rank 1 not named" >&2; exit 1; }
  [ ! -e "$out" ] || { echo "a results file after a failed run" >&2; exit 1; }
  [ -e "$out.partial.h5" ] || { echo "no checkpoint left" >&2; exit 1; }
  left=$(h5dump -a /combos_done "$out.partial.h5" | awk '/\(0\)/ {print $2}')
  echo "the checkpoint holds $left combos"
  "${mpiexec[@]}" "$np" "$m" "$KBT" run "$scratch/cfg.yaml" --device reference --threads 1 --quiet -o "$out" --resume \
    --profile >"$scratch/resumed.log"
  resumed=$(awk '$1 == "resumed_combos" {print $2}' "$scratch/resumed.log")
  [ "$resumed" = "$left" ] && [ "$resumed" -gt 0 ] || { echo "resumed $resumed, not the checkpoint's $left" >&2; exit 1; }
  "$KBT" run "$scratch/cfg.yaml" --device reference --quiet -o "$scratch/single.h5" >/dev/null
  compare "$scratch/single.h5" "$out"
  ;;
hoisting)
  n=$1
  "$KBT" data synth --out "$scratch/synth.h5" --symbols 1 --bars 200000 --freq 1h --seed 3 >/dev/null
  # w varies slowest and k fastest: a chunk of 2 combos is one w, one series.
  cat >"$scratch/cfg.yaml" <<YAML
data: synth.h5
strategy:
  params:
    w: {range: [10, 200, 10]}
    k: {values: [0, 1]}
  signals:
    s: sma(close, w)
  position: where(close > s * (1 + k * 0.001), 1, -1)
simulation: {fee_bps: 1}
sweep: {top_k: 3}
YAML
  for attempt in 1 2 3; do
    "${mpiexec[@]}" "$np" "$n" "$KBT" run "$scratch/cfg.yaml" --device serial --quiet --checkpoint-combos 2 \
      --profile -o "$scratch/mpi.h5" >"$scratch/mpi.log"
    shares=$(awk '$1 == "mpi_rank_combos" {print $2}' "$scratch/mpi.log")
    series=$(awk '$1 == "mpi_rank_hoisted_series" {print $2}' "$scratch/mpi.log")
    echo "attempt $attempt: combos per rank $shares, series computed per rank $series"
    [ -n "$shares" ] && [ -n "$series" ] || { echo "no per-rank profile" >&2; exit 1; }
    paste -d' ' <(tr ',' '\n' <<<"$shares") <(tr ',' '\n' <<<"$series") |
      awk '{ if ($2 != $1 / 2) { print "a rank with " $1 " combos computed " $2 " series" > "/dev/stderr"; bad = 1 } }
           END { exit bad }'
    [ "$(tr ',' '\n' <<<"$series" | awk '{s += $1} END {print s}')" = 20 ] || { echo "not 20 series in all" >&2; exit 1; }
    # Not vacuous: at least two ranks took chunks (else try again).
    [ "$(tr ',' '\n' <<<"$shares" | awk '$1 > 0' | wc -l)" -ge 2 ] && exit 0
  done
  echo "one rank took every chunk in 3 attempts" >&2; exit 1
  ;;
bad_input)
  n=$1
  config=$(config_copy sma_cross.yaml)
  sed -i 's/^sweep:/sweeep:/' "$config"
  if "${mpiexec[@]}" "$np" "$n" "$KBT" run "$config" --quiet -o "$scratch/r.h5" >"$scratch/out.log" 2>"$scratch/err.log"; then
    echo "a bad config ran" >&2; exit 1
  fi
  cat "$scratch/err.log"
  [ "$(grep -c "kbt: error \[config\]" "$scratch/err.log")" -eq 1 ] || { echo "not reported exactly once" >&2; exit 1; }
  grep -q "sweeep" "$scratch/err.log"
  ;;
*) echo "unknown case $case_name" >&2; exit 2 ;;
esac
