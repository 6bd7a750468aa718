#!/usr/bin/env bash
# The sweep kernel is compiled once per space and precision, at -O3, in
# src/sweep/instances/ (docs/kernels.md "The kernels are compiled once, at
# -O3"). Given libkbt's object files, checks that no other object holds a copy
# of the kernel's code, which the linker could keep instead of the instance's,
# and that the instances hold it (else this check would pass vacuously).
#   kernels_only_in_instances.sh OBJECT...   (or one ';'-separated list, as
#   CMake's $<TARGET_OBJECTS:kbt> gives it)
set -euo pipefail
objects=()
for arg in "$@"; do
  IFS=';' read -ra listed <<<"$arg"
  objects+=("${listed[@]}")
done
pattern='SweepLaunch<|BlockEvaluator<.*>::pointwise_block'
in_instances=0 elsewhere=0
for object in "${objects[@]}"; do
  # Read whole, not piped to grep -q (whose early exit is a SIGPIPE under pipefail).
  symbols=$(nm -C "$object") || { echo "nm cannot read $object" >&2; exit 1; }
  grep -Eq "$pattern" <<<"$symbols" || continue
  case "$object" in
    */instances/*) in_instances=$((in_instances + 1)) ;;
    *) echo "kernel code compiled outside src/sweep/instances/: $object" >&2; elsewhere=$((elsewhere + 1)) ;;
  esac
done
if ((in_instances == 0)); then
  echo "no object of src/sweep/instances/ holds the sweep kernel (checked ${#objects[@]} objects)" >&2
  exit 1
fi
echo "sweep kernel in $in_instances instance objects, in $elsewhere others"
((elsewhere == 0))
