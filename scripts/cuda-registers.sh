#!/usr/bin/env bash
# Registers, stack and spills of every CUDA variant of the sweep kernel, from
# ptxas (docs/kernels.md "CUDA: registers and spills"). Needs no GPU: it
# compiles the library's two CUDA instances with -Xptxas -v and tabulates what
# ptxas reports for each SweepLaunch and WindowSweepLaunch.
#
#   scripts/cuda-registers.sh KOKKOS_CUDA_PREFIX [BUILD_DIR] [OUT_DIR]
#
# KOKKOS_CUDA_PREFIX: a Kokkos installed with CUDA (scripts/build-kokkos.sh ...
# cuda; its bin/nvcc_wrapper is used). BUILD_DIR: any configured kbt build, for
# its generated headers (default build). OUT_DIR keeps the ptxas logs (default
# a temporary directory). Takes about 6 minutes on two cores: the instances
# hold every variant. KBT_TABULATE_ONLY=1 compiles nothing and tabulates
# every OUT_DIR/ptxas_*.log instead: this script's earlier logs, or a build's
# own output with KBT_CUDA_PTXAS_REPORT=ON (scripts/cuda-stage.sh), which
# compiles the instances once for both.
# Exits 1 when a variant is over the register budget or spills (below).
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "cuda-registers.sh: $*" >&2; exit 2; }
kokkos=${1:-}
build=${2:-build}
[[ -n $kokkos ]] || die "usage: scripts/cuda-registers.sh KOKKOS_CUDA_PREFIX [BUILD_DIR] [OUT_DIR]"
wrapper=$kokkos/bin/nvcc_wrapper
[[ -x $wrapper ]] || die "$wrapper not found (a Kokkos built with CUDA?)"
[[ -f $build/include/kbt/core/version.hpp ]] || die "$build is not a configured kbt build (no include/kbt/core/version.hpp)"
arch=${KBT_CUDA_ARCH:-sm_90}
out=${3:-$(mktemp -d)}
mkdir -p "$out"

compile() {  # precision
  "$wrapper" -arch="$arch" --extended-lambda -std=c++20 -O2 --fmad=false -Xptxas -v \
    -Iinclude -Isrc -I"$build/include" -I"$kokkos/include" \
    -c "src/sweep/instances/sweeper_cuda_$1.cpp" -o "$out/sweeper_cuda_$1.o" >"$out/ptxas_$1.log" 2>&1 ||
    { cat "$out/ptxas_$1.log" >&2; die "nvcc failed on sweeper_cuda_$1.cpp"; }
}
if [[ ${KBT_TABULATE_ONLY:-0} != 1 ]]; then
  compile fp64 &
  compile fp32 &
  wait
fi

# One line per entry function: name, registers, stack bytes, spill store bytes.
tabulate() {
  awk '/Function properties for/ {name = $NF}
       /bytes stack frame/ {stack = $1; spill = $5}
       /Used [0-9]+ registers/ {for (i = 1; i <= NF; ++i) if ($i == "Used") regs = $(i + 1); print name, regs, stack, spill}' "$@" |
    c++filt | grep -E 'ParallelFor<kbt::(Window)?SweepLaunch<kbt::SweepFunctor<Kokkos::Cuda' |
    sed -E 's/.*ParallelFor<kbt::(Window)?SweepLaunch<kbt::SweepFunctor<Kokkos::Cuda, (double|float)>, ([0-9]+), ([0-9]+)u, (-?[0-9]+)>.*\) ([0-9]+) ([0-9]+) ([0-9]+)$/\1 \2 \3 \4 \5 \6 \7 \8/' |
    sed -E 's/^ /- /' | sort -u
}
{
  echo "| kernel | real | step kind | metric set | symbols | registers | stack (B) | spill stores (B) |"
  echo "|---|---|---|---|---|---|---|---|"
  tabulate "$out"/ptxas_*.log | awk '
      BEGIN { kind[0] = "general"; kind[1] = "close fills"; kind[2] = "close fills with carry"
              set[0] = "none"; set[1] = "returns"; set[3] = "returns + drawdown"; set[15] = "all"
              sym[1] = "one"; sym[0] = "several"; sym[-1] = "either" }
      { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", ($1 == "Window" ? "WindowSweepLaunch" : "SweepLaunch"),
               $2, kind[$3], set[$4], sym[$5], $6, $7, $8 }'
} | tee "$out/registers.md"
echo "cuda-registers.sh: logs in $out" >&2

# The budget (docs/kernels.md "The sweep kernels"): no variant uses stack or
# spills; a SweepLaunch with a reduced metric set uses at most 128 registers in
# fp64 and 96 in fp32. Exits 1 naming every variant over it.
over=$(awk -F' *[|] *' 'NR > 2 {
  budget = ($3 == "double" ? 128 : 96)
  if ($8 != 0 || $9 != 0 || ($2 == "SweepLaunch" && $5 != "all" && $7 > budget)) print
}' "$out/registers.md")
[[ -n $(tail -n +3 "$out/registers.md") ]] || die "no sweep kernel found in the ptxas logs"
if [[ -n $over ]]; then
  echo "cuda-registers.sh: over budget:" >&2
  echo "$over" >&2
  exit 1
fi
echo "cuda-registers.sh: every variant within budget" >&2
