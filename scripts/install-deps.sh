#!/usr/bin/env bash
# Installs kbt's build and test dependencies from Debian 12 packages.
# Idempotent: does nothing when everything is already present.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config ccache
  libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
  libhdf5-dev hdf5-tools libyaml-cpp-dev libcli11-dev libcsv-dev libhowardhinnant-date-dev tzdata
  libgtest-dev libgmock-dev libbenchmark-dev
  gnuplot-nox
  libopenmpi-dev openmpi-bin python3-mpi4py   # mpirun kbt run, kbt.run(comm=...) (docs/mpi.md)
  python3-dev pybind11-dev python3-numpy python3-pandas python3-yaml python3-matplotlib python3-pytest python3-h5py python3-venv python3-pip   # import kbt (docs/python.md)
  clang libclang-rt-dev   # scripts/fuzz.sh: libFuzzer, ASan, UBSan runtimes
)
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
