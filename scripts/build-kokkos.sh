#!/usr/bin/env bash
# Builds Kokkos (and Kokkos Kernels) from sources the user supplies and installs
# them into PREFIX, for kbt's -DKokkos_ROOT=PREFIX (docs/building.md).
#
#   scripts/build-kokkos.sh KOKKOS_SRC PREFIX openmp|cuda [KOKKOS_KERNELS_SRC]
#
# KOKKOS_SRC / KOKKOS_KERNELS_SRC: a release archive (.tar.gz, .tgz, .tar.xz,
# .tar) or an unpacked source tree. Without KOKKOS_KERNELS_SRC, the script
# looks for kokkos-kernels-<version>.tar.gz (or an unpacked kokkos-kernels-<version>/)
# next to KOKKOS_SRC; if there is none, only Kokkos is built.
#
# Nothing is downloaded. Sources are unpacked/copied into a scratch directory
# under ${TMPDIR:-/tmp} (never into the repository: the third-party code must
# not end up in it), patched there if needed, built there with Ninja and
# removed afterwards (KBT_KEEP_SCRATCH=1 keeps it).
#
# Cached: PREFIX/.kbt-build-kokkos.stamp records the sources (sha256), the mode
# and the build options; a later run with the same inputs does nothing.
#
# Environment:
#   KBT_KOKKOS_ARCH    cuda mode: the Kokkos_ARCH_* option (default HOPPER90)
#   KBT_BUILD_JOBS     parallel jobs (default: nproc)
#   KBT_KEEP_SCRATCH=1 keep the scratch directory
#   KBT_KOKKOS_FORCE=1 install into a non-empty PREFIX not made by this script
#   CXX                openmp mode: the host compiler (default: CMake's choice)
#   KBT_KOKKOS_CXX_STANDARD  the C++ standard Kokkos is built for (default: 20 in
#                      openmp mode, 17 in cuda mode; Kokkos 3.x needs 17)
set -euo pipefail

prog=build-kokkos
say() { echo "[$prog] $*"; }
die() { echo "[$prog] error: $*" >&2; exit 1; }
usage() {
  [ $# -gt 0 ] && echo "[$prog] $*" >&2
  cat >&2 <<'EOF'
usage: scripts/build-kokkos.sh KOKKOS_SRC PREFIX openmp|cuda [KOKKOS_KERNELS_SRC]
  KOKKOS_SRC           kokkos-X.Y.ZZ.tar.gz or an unpacked Kokkos source tree
  PREFIX               installation directory (created; reused when its stamp matches)
  openmp|cuda          Serial + OpenMP (host compiler), or Serial + CUDA (nvcc_wrapper,
                       arch from KBT_KOKKOS_ARCH, default HOPPER90)
  KOKKOS_KERNELS_SRC   kokkos-kernels archive or tree (default: kokkos-kernels-X.Y.ZZ.tar.gz
                       next to KOKKOS_SRC, if present)
EOF
  exit 2
}

# --- arguments -----------------------------------------------------------------
if [ $# -lt 3 ] || [ $# -gt 4 ]; then usage "expected 3 or 4 arguments, got $#"; fi
kokkos_src=$1 prefix=$2 mode=$3 kk_src=${4:-}
case $mode in openmp|cuda) ;; *) usage "mode must be openmp or cuda, not '$mode'" ;; esac
[ -n "$prefix" ] || usage "PREFIX is empty"

is_archive() { case $1 in *.tar.gz|*.tgz|*.tar.xz|*.txz|*.tar.bz2|*.tar) return 0 ;; *) return 1 ;; esac; }
check_src() {  # $1: what, $2: path
  if [ -d "$2" ]; then
    [ -f "$2/CMakeLists.txt" ] || usage "$1 '$2' is a directory without CMakeLists.txt"
  elif [ -f "$2" ]; then
    is_archive "$2" || usage "$1 '$2' is neither a directory nor a .tar.gz/.tgz/.tar.xz/.tar archive"
  else
    usage "$1 '$2' does not exist"
  fi
}
check_src "Kokkos source" "$kokkos_src"
kokkos_src=$(realpath "$kokkos_src")

# The version in a name like kokkos-4.6.01(.tar.gz), used to find the matching Kernels.
src_name_version() { basename "$1" | sed -E 's/\.(tar\.gz|tgz|tar\.xz|txz|tar\.bz2|tar)$//; s/^kokkos(-kernels)?-//'; }
if [ -n "$kk_src" ]; then
  check_src "Kokkos Kernels source" "$kk_src"
  kk_src=$(realpath "$kk_src")
else
  v=$(src_name_version "$kokkos_src")
  for cand in "$(dirname "$kokkos_src")/kokkos-kernels-$v.tar.gz" "$(dirname "$kokkos_src")/kokkos-kernels-$v"; do
    if [ -e "$cand" ]; then kk_src=$cand; break; fi
  done
  if [ -n "$kk_src" ]; then
    say "Kokkos Kernels found next to Kokkos: $kk_src"
  else
    say "no Kokkos Kernels source given or found (kokkos-kernels-$v.tar.gz next to Kokkos): building Kokkos only"
  fi
fi

# PREFIX and scratch must lie outside this repository (third-party README).
repo=$(cd "$(dirname "$0")/.." && pwd -P)
prefix=$(realpath -m "$prefix")
case $prefix/ in "$repo"/*) usage "PREFIX '$prefix' is inside the repository $repo; install Kokkos outside it" ;; esac
[ "$prefix" != / ] || usage "PREFIX must not be /"

command -v cmake >/dev/null || die "cmake not found (scripts/install-deps.sh installs it)"
command -v ninja >/dev/null || die "ninja not found (apt-get install ninja-build)"
jobs=${KBT_BUILD_JOBS:-$(nproc)}

# --- timing ----------------------------------------------------------------------
now() { date +%s.%N; }
t_total=$(now)
step() {  # step NAME CMD...: run CMD, print how long it took
  local name=$1 t0; shift
  say "== $name"
  t0=$(now)
  "$@"
  say "== $name: $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}') s"
}

quiet() { "$@" >/dev/null; }   # for `cmake --install`'s file-by-file listing

# --- what this build is: the cache key ------------------------------------------
src_id() {  # sha256 of an archive, or of every file of a tree (path + content)
  if [ -d "$1" ]; then
    echo "tree-sha256:$(cd "$1" && find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z \
      | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
  else
    echo "sha256:$(sha256sum "$1" | cut -d' ' -f1)"
  fi
}

arch=${KBT_KOKKOS_ARCH:-HOPPER90}
[[ $arch =~ ^[A-Z]+[0-9]+$ ]] || usage "KBT_KOKKOS_ARCH '$arch' is not a Kokkos arch name such as HOPPER90 or AMPERE80"

# Options shared by the mode (no paths: they are part of the cache key).
# Position-independent: kbt's Python module is a shared object that links
# these static libraries.
kokkos_opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DKokkos_ENABLE_SERIAL=ON
  -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF -DKokkos_ENABLE_BENCHMARKS=OFF
  # GCC 12 miscompiles the mdspan-based View (kokkos/kokkos#7464); Kokkos < 4.7,
  # which only has the legacy View, ignores this option.
  -DKokkos_ENABLE_IMPL_VIEW_LEGACY=ON)
if [ "$mode" = openmp ]; then
  kokkos_opts+=(-DCMAKE_CXX_STANDARD=${KBT_KOKKOS_CXX_STANDARD:-20} -DKokkos_ENABLE_OPENMP=ON)
  cxx=${CXX:-c++}
  command -v "$cxx" >/dev/null || die "C++ compiler '$cxx' not found"
  compiler_id="$("$cxx" --version | head -1)"
else
  # nvcc in C++17 (CUDA 13 nvcc also does 20, but 17 is what was checked).
  kokkos_opts+=(-DCMAKE_CXX_STANDARD=${KBT_KOKKOS_CXX_STANDARD:-17} -DKokkos_ENABLE_CUDA=ON "-DKokkos_ARCH_$arch=ON")
  if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH   # nvcc_wrapper calls plain `nvcc`
  fi
  command -v nvcc >/dev/null || die "nvcc not found (put the CUDA toolkit's bin/ on PATH)"
  compiler_id="$(nvcc --version | grep -m1 release); host $(${NVCC_WRAPPER_DEFAULT_COMPILER:-g++} --version | head -1)"
fi
# Kokkos Kernels without ETI: kernels are instantiated in the code that calls
# them (ETI for double/LayoutLeft/int/size_t took tens of minutes on 2 cores).
# Only BLAS and BATCHED: kbt needs nothing else. Every KokkosKernels_INST_* option
# of 4.6.01 (cmake/kokkoskernels_eti_*.cmake) is set OFF; the ones for absent
# backends are unused (CMake warns about them, harmlessly).
kk_opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_ETI_ONLY=OFF
  -DKokkosKernels_ENABLE_ALL_COMPONENTS=OFF
  -DKokkosKernels_ENABLE_COMPONENT_BLAS=ON -DKokkosKernels_ENABLE_COMPONENT_BATCHED=ON
  -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF
  -DKokkosKernels_ENABLE_PERFTESTS=OFF -DKokkosKernels_ENABLE_BENCHMARK=OFF)
for t in DOUBLE FLOAT HALF BHALF COMPLEX_DOUBLE COMPLEX_FLOAT LAYOUTLEFT LAYOUTRIGHT \
         ORDINAL_INT ORDINAL_INT64_T OFFSET_INT OFFSET_SIZE_T MEMSPACE_HOSTSPACE \
         EXECSPACE_SERIAL EXECSPACE_OPENMP EXECSPACE_THREADS; do
  kk_opts+=("-DKokkosKernels_INST_$t=OFF")
done
if [ "$mode" = cuda ]; then
  for t in EXECSPACE_CUDA MEMSPACE_CUDASPACE MEMSPACE_CUDAUVMSPACE; do kk_opts+=("-DKokkosKernels_INST_$t=OFF"); done
  # Kokkos Kernels' own CUDA kernels, not NVIDIA's libraries: with CUDA found it
  # enables cuBLAS, cuSPARSE and cuSOLVER by default, and every kbt program then
  # loads libcublasLt (517 MiB), which no 64 MiB device bundle can carry
  # (docs/gpu.md). kbt's one Kokkos Kernels call (the validation's gemm) has a
  # native kernel.
  for t in CUBLAS CUSPARSE CUSOLVER; do kk_opts+=("-DKokkosKernels_ENABLE_TPL_$t=OFF"); done
fi

say "hashing sources"
key=$(
  echo "script=build-kokkos.sh v1"
  echo "mode=$mode"
  [ "$mode" = cuda ] && echo "arch=$arch"
  echo "compiler=$compiler_id"
  echo "kokkos=$(src_id "$kokkos_src")"
  echo "kokkos-options=${kokkos_opts[*]}"
  if [ -n "$kk_src" ]; then
    echo "kokkos-kernels=$(src_id "$kk_src")"
    echo "kokkos-kernels-options=${kk_opts[*]}"
  else
    echo "kokkos-kernels=none"
  fi
)
stamp=$prefix/.kbt-build-kokkos.stamp
owned=$prefix/.kbt-build-kokkos.owned

# --- PREFIX: reuse, replace or refuse -------------------------------------------
mkdir -p "$prefix" || die "cannot create PREFIX '$prefix' (choose a writable one)"
# One build per PREFIX at a time (two CI jobs sharing the cache).
exec 9<"$prefix"
flock 9

kokkos_config_present() { compgen -G "$prefix/lib*/cmake/Kokkos/KokkosConfig.cmake" >/dev/null; }
if [ -f "$stamp" ] && [ "$(grep -v '^#' "$stamp")" = "$key" ] && kokkos_config_present; then
  say "cached: $prefix already holds this build ($(grep -m1 '^# built' "$stamp" | sed 's/^# //')); nothing to do"
  say "total: $(awk -v a="$t_total" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}') s"
  exit 0
fi
mark_owned=1
if [ -n "$(ls -A "$prefix")" ]; then
  if [ -f "$owned" ]; then
    # This script created PREFIX empty, so everything in it is a previous
    # (different or unfinished) install of ours: start again from empty.
    say "PREFIX holds an older or unfinished build by this script; replacing it"
    find "$prefix" -mindepth 1 -maxdepth 1 ! -name .kbt-build-kokkos.owned -exec rm -rf {} +
  elif [ "${KBT_KOKKOS_FORCE:-0}" = 1 ]; then
    say "warning: installing over the existing contents of $prefix (KBT_KOKKOS_FORCE=1)"
    mark_owned=0   # not ours to empty later
  else
    die "PREFIX '$prefix' is not empty and was not made by this script; use a new or empty directory (or KBT_KOKKOS_FORCE=1)"
  fi
fi
rm -f "$stamp"
[ "$mark_owned" = 0 ] || echo "created empty by scripts/build-kokkos.sh, which may replace its contents" > "$owned"

# --- scratch ----------------------------------------------------------------------
scratch=$(mktemp -d "${TMPDIR:-/tmp}/kbt-build-kokkos.XXXXXX")
case $(realpath "$scratch")/ in "$repo"/*) rm -rf "$scratch"; die "TMPDIR is inside the repository; set TMPDIR elsewhere" ;; esac
cleanup() {
  if [ "${KBT_KEEP_SCRATCH:-0}" = 1 ]; then say "scratch kept: $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT
say "scratch: $scratch"

unpack() {  # unpack SRC DEST: a private copy, so that patches never touch the user's files
  mkdir -p "$2"
  if [ -d "$1" ]; then
    cp -a "$1/." "$2/"
    rm -rf "$2/.git"
  else
    # Release archives hold one top directory (kokkos-4.6.01/).
    tar -xf "$1" -C "$2" --strip-components=1
  fi
  [ -f "$2/CMakeLists.txt" ] || die "$1 does not unpack to a CMake source tree"
}
cmake_version() {  # cmake_version SRCDIR PROJECT -> "M m p"
  local f=$1/CMakeLists.txt p=$2 maj min pat
  maj=$(sed -nE "s/^ *set\( *${p}_VERSION_MAJOR +([0-9]+) *\).*/\1/Ip" "$f" | head -1)
  min=$(sed -nE "s/^ *set\( *${p}_VERSION_MINOR +([0-9]+) *\).*/\1/Ip" "$f" | head -1)
  pat=$(sed -nE "s/^ *set\( *${p}_VERSION_PATCH +([0-9]+) *\).*/\1/Ip" "$f" | head -1)
  if [ -z "$maj" ] || [ -z "$min" ] || [ -z "$pat" ]; then die "cannot read the ${p} version from $f"; fi
  echo "$maj $min $pat"
}

step "unpack Kokkos" unpack "$kokkos_src" "$scratch/kokkos"
read -r kv_maj kv_min kv_pat < <(cmake_version "$scratch/kokkos" Kokkos)
kokkos_version=$(printf '%d.%d.%02d' "$kv_maj" "$kv_min" "$kv_pat")
kokkos_num=$((kv_maj * 10000 + kv_min * 100 + kv_pat))
say "Kokkos $kokkos_version ($mode)"

# --- cuda: nvcc_wrapper and the CUDA 13 adaptation (scratch copy only) ----------
patch_cuda13() {
  local f=$scratch/kokkos/core/src/Cuda/Kokkos_Cuda_Instance.hpp
  [ -f "$f" ] || die "CUDA 13 patch: $f not found (Kokkos layout changed?)"
  python3 - "$f" <<'PY'
import sys
path = sys.argv[1]
src = open(path).read()
# CUDA 13 changed three runtime signatures (Kokkos >= 4.7.1 has the same change):
#  - cudaGraphAddDependencies gained a `const cudaGraphEdgeData*` argument;
#  - cudaMemAdvise and cudaMemPrefetchAsync take a cudaMemLocation instead of a
#    device number (Kokkos only prefetches to a device, so type Device is right);
#    prefetch also takes a flags word.
edits = [
    ("    return cudaGraphAddDependencies(graph, from, to, numDependencies);\n",
     "#if CUDART_VERSION >= 13000\n"
     "    return cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies);\n"
     "#else\n"
     "    return cudaGraphAddDependencies(graph, from, to, numDependencies);\n"
     "#endif\n"),
    ("    return cudaMemAdvise(devPtr, count, advice, device);\n",
     "#if CUDART_VERSION >= 13000\n"
     "    return cudaMemAdvise(devPtr, count, advice,\n"
     "                         cudaMemLocation{cudaMemLocationTypeDevice, device});\n"
     "#else\n"
     "    return cudaMemAdvise(devPtr, count, advice, device);\n"
     "#endif\n"),
    ("    return cudaMemPrefetchAsync(devPtr, count, dstDevice,\n"
     "                                get_input_stream(stream));\n",
     "#if CUDART_VERSION >= 13000\n"
     "    return cudaMemPrefetchAsync(\n"
     "        devPtr, count, cudaMemLocation{cudaMemLocationTypeDevice, dstDevice},\n"
     "        0, get_input_stream(stream));\n"
     "#else\n"
     "    return cudaMemPrefetchAsync(devPtr, count, dstDevice,\n"
     "                                get_input_stream(stream));\n"
     "#endif\n"),
]
for old, new in edits:
    n = src.count(old)
    if n != 1:
        sys.exit(f"CUDA 13 patch: expected exactly one\n{old}in {path}, found {n}")
    src = src.replace(old, new)
open(path, "w").write(src)
PY
}
if [ "$mode" = cuda ]; then
  nvcc_major=$(nvcc --version | sed -nE 's/.*release ([0-9]+)\..*/\1/p')
  [ -n "$nvcc_major" ] || die "cannot read nvcc's version"
  wrapper=$scratch/kokkos/bin/nvcc_wrapper
  [ -f "$wrapper" ] || die "$wrapper not found"
  # nvcc_wrapper compiles CMake's checks for its default_arch (sm_70 in 4.6,
  # which CUDA 13 removed); make it the target arch. The patched wrapper is
  # the one installed in PREFIX/bin, so kbt gets it too.
  sm=sm_${arch##*[A-Z]}
  grep -q '^default_arch="sm_[0-9]*"' "$wrapper" || die "nvcc_wrapper: no default_arch=\"sm_NN\" line to patch"
  sed -i -E "s/^default_arch=\"sm_[0-9]+\"/default_arch=\"$sm\"/" "$wrapper"
  say "nvcc_wrapper: default_arch=$sm"
  if [ "$nvcc_major" -ge 13 ] && [ "$kokkos_num" -lt 40701 ]; then
    step "patch Kokkos $kokkos_version for CUDA $nvcc_major" patch_cuda13
  fi
fi

# --- Kokkos ------------------------------------------------------------------------
compiler_args=()
if [ "$mode" = cuda ]; then
  # Compile with the wrapper's final place: Kokkos records its compiler's path
  # in KokkosConfigCommon.cmake, and the scratch copy is deleted at the end.
  mkdir -p "$prefix/bin"
  cp "$scratch/kokkos/bin/nvcc_wrapper" "$prefix/bin/nvcc_wrapper"
  compiler_args=(-DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper")
elif [ -n "${CXX:-}" ]; then
  compiler_args=(-DCMAKE_CXX_COMPILER="$CXX")
fi
step "configure Kokkos" cmake -S "$scratch/kokkos" -B "$scratch/build-kokkos" -G Ninja \
  -DCMAKE_INSTALL_PREFIX="$prefix" "${compiler_args[@]}" "${kokkos_opts[@]}"
step "build Kokkos" cmake --build "$scratch/build-kokkos" -j"$jobs"
step "install Kokkos" quiet cmake --install "$scratch/build-kokkos"

# --- Kokkos Kernels ----------------------------------------------------------------
kk_version=none
if [ -n "$kk_src" ]; then
  step "unpack Kokkos Kernels" unpack "$kk_src" "$scratch/kokkos-kernels"
  read -r a b c < <(cmake_version "$scratch/kokkos-kernels" KokkosKernels)
  kk_version=$(printf '%d.%d.%02d' "$a" "$b" "$c")
  [ "$a" = "$kv_maj" ] || die "Kokkos Kernels $kk_version does not match Kokkos $kokkos_version (major version)"
  say "Kokkos Kernels $kk_version"
  kk_compiler=()
  if [ "$mode" = cuda ]; then
    kk_compiler=(-DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper")
  elif [ -n "${CXX:-}" ]; then
    kk_compiler=(-DCMAKE_CXX_COMPILER="$CXX")
  fi
  # Same standard as Kokkos (Kernels refuses a different one).
  std=$(printf '%s\n' "${kokkos_opts[@]}" | sed -n 's/^-DCMAKE_CXX_STANDARD=//p')
  step "configure Kokkos Kernels" cmake -S "$scratch/kokkos-kernels" -B "$scratch/build-kk" -G Ninja \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" -DCMAKE_CXX_STANDARD="$std" \
    "${kk_compiler[@]}" "${kk_opts[@]}"
  step "build Kokkos Kernels" cmake --build "$scratch/build-kk" -j"$jobs"
  step "install Kokkos Kernels" quiet cmake --install "$scratch/build-kk"
fi

# The stamp last: a build that stops half-way leaves none, and is redone.
{
  echo "# built $(date -u +%Y-%m-%dT%H:%M:%SZ): Kokkos $kokkos_version, Kokkos Kernels $kk_version, $mode"
  echo "# from $kokkos_src ${kk_src:-}"
  echo "$key"
} > "$stamp"
say "installed Kokkos $kokkos_version + Kokkos Kernels $kk_version ($mode) into $prefix"
say "total: $(awk -v a="$t_total" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}') s"
