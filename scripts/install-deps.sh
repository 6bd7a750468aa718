#!/usr/bin/env bash
# Installs kbt's dependencies from Debian 12 packages.
#
#   scripts/install-deps.sh [main|all]
#
# main: what the main job needs (scripts/demo.sh: the library, the CLI, the
# Python module, MPI, the tools that build Kokkos with OpenMP from Debian's
# source package, and Debian's Serial Kokkos for builds that choose none);
# all (default): also the test suite's and the benchmarks' (GoogleTest, Google
# Benchmark, pytest, clang for the fuzzers).
# Idempotent: does nothing when everything is already present.
set -euo pipefail
what=${1:-all}
main=(
  build-essential cmake ninja-build pkg-config ccache
  libhdf5-dev hdf5-tools libyaml-cpp-dev libcli11-dev libcsv-dev libhowardhinnant-date-dev tzdata
  gnuplot-nox
  libopenmpi-dev openmpi-bin python3-mpi4py   # mpirun kbt run, kbt.run(comm=...) (docs/mpi.md)
  python3-dev pybind11-dev python3-numpy python3-pandas python3-yaml python3-matplotlib python3-h5py   # import kbt (docs/python.md)
  # Debian's Serial Kokkos: a plain cmake or `pip install .` without a Kokkos
  # chosen (docs/python.md), scripts/sanitize.sh and scripts/fuzz.sh.
  libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
)
tests=(
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-pytest python3-venv python3-pip
  clang libclang-rt-dev   # scripts/fuzz.sh: libFuzzer, ASan, UBSan runtimes
)
case $what in
  main) packages=("${main[@]}") ;;
  all) packages=("${main[@]}" "${tests[@]}") ;;
  *) echo "install-deps.sh: expected main or all, not '$what'" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "kbt: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
