#!/usr/bin/env bash
# mpirun kbt run against one process (docs/mpi.md, docs/benchmarks.md "MPI"),
# timed as processes by GNU time in one run:
#  1. the SMA cross (fast 5..100, slow 20..400 step 5, fast < slow: 6,695
#     combos) on BARS bars, 1 process vs mpirun -n RANKS, REPS times
#     alternately; prints the best wall times and the speed-up;
#  2. the sharing overhead: 1,000,000 combos on 50 bars (almost no simulation:
#     the time is the rows' trip to rank 0, its merge and its write), 1 process
#     vs mpirun -n RANKS.
#
#   benchmarks/mpi_scaling.sh [BUILD_DIR] [DEVICE] [BARS] [RANKS] [REPS]
set -euo pipefail
build=${1:-build}
device=${2:-serial}
bars=${3:-100000}
ranks=${4:-2}
reps=${5:-3}
kbt="$build/src/kbt"
[[ -x $kbt ]] || { echo "mpi_scaling.sh: $kbt not built" >&2; exit 2; }
mpiexec=(mpiexec --oversubscribe --allow-run-as-root)
# OpenMPI's shared-memory single copy (CMA) lets rank 0 take a chunk while its
# sender computes; where ptrace is forbidden (containers), run with
# OMPI_MCA_btl_vader_single_copy_mechanism=none and expect less (docs/mpi.md).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$kbt" data synth --out "$work/d.h5" --symbols 1 --bars "$bars" --freq 1h --seed 5 >/dev/null
"$kbt" data synth --out "$work/short.h5" --symbols 1 --bars 50 --freq 1h --seed 5 >/dev/null
source "$(dirname "$0")/sma_cross_config.sh"
sma_cross_config d.h5 "[5, 100, 1]" "[20, 400, 5]" '"fast < slow"' >"$work/c.yaml"
sma_cross_config short.h5 "[1, 1000, 1]" "[1, 1000, 1]" "" >"$work/m.yaml"
seconds() { /usr/bin/time -f %e -o "$work/t" "$@" >/dev/null 2>&1; cat "$work/t"; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b < a ? b : a) }'; }
# OpenMPI's default point-to-point layer (UCX where built in) spends ~0.2 s of
# MPI_Init probing devices; on one node the shared-memory layer `ob1` needs
# none of it (docs/mpi.md "One machine"): measured both ways.
one=999999 many=999999 many_ob1=999999
for ((i = 0; i < reps; i++)); do
  rm -f "$work"/r.h5*
  one=$(best "$one" "$(seconds "$kbt" run "$work/c.yaml" --device "$device" --no-verify --quiet --out "$work/r.h5")")
  rm -f "$work"/r.h5*
  many=$(best "$many" "$(seconds "${mpiexec[@]}" -n "$ranks" "$kbt" run "$work/c.yaml" --device "$device" --no-verify \
    --quiet --out "$work/r.h5")")
  rm -f "$work"/r.h5*
  many_ob1=$(best "$many_ob1" "$(seconds "${mpiexec[@]}" --mca pml ob1 -n "$ranks" "$kbt" run "$work/c.yaml" \
    --device "$device" --no-verify --quiet --out "$work/r.h5")")
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "sma_cross 6695 combos x $bars bars on $device: 1 process ${one} s, mpirun -n $ranks ${many} s" \
  "(speed-up $(ratio "$one" "$many")x), mpirun --mca pml ob1 -n $ranks ${many_ob1} s (speed-up $(ratio "$one" "$many_ob1")x)"
rm -f "$work"/r.h5*
m1=$(seconds "$kbt" run "$work/m.yaml" --device "$device" --no-verify --quiet --out "$work/r.h5")
rm -f "$work"/r.h5*
mn=$(seconds "${mpiexec[@]}" -n "$ranks" "$kbt" run "$work/m.yaml" --device "$device" --no-verify --quiet \
  --out "$work/r.h5")
echo "1,000,000 combos x 50 bars on $device: 1 process ${m1} s, mpirun -n $ranks ${mn} s" \
  "(the sharing's overhead where there is nothing to share: $(awk -v a="$m1" -v b="$mn" 'BEGIN { printf "%.2f", b - a }') s)"
