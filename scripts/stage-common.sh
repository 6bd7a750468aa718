# Sourced by CI's Kokkos 4.6.01 stages (scripts/openmp-stage.sh,
# scripts/cuda-stage.sh) after they set `stage` (their name, for messages):
# the release archives of Kokkos and Kokkos Kernels, and a timer.
#   KBT_THIRD_PARTY   the archives (default: shared/third-party next to the repository)
# Sets kokkos_version, third_party; defines timed NAME CMD... (runs CMD, prints
# its wall time) and kokkos_from_archives MODE PREFIX (scripts/build-kokkos.sh
# of the archives: openmp or cuda, cached in PREFIX).
kokkos_version=4.6.01
# CI runs on a clean clone that sits next to a shared/ folder holding the release archives.
third_party=${KBT_THIRD_PARTY:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/shared/third-party"}
for f in kokkos-$kokkos_version.tar.gz kokkos-kernels-$kokkos_version.tar.gz; do
  [ -f "$third_party/$f" ] || { echo "$stage: $third_party/$f not found (set KBT_THIRD_PARTY)" >&2; exit 1; }
done

timed() {
  local name=$1 t0; shift
  t0=$(date +%s.%N)
  "$@"
  echo "$stage: $name: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"
}

kokkos_from_archives() {
  bash scripts/build-kokkos.sh "$third_party/kokkos-$kokkos_version.tar.gz" "$2" "$1" \
    "$third_party/kokkos-kernels-$kokkos_version.tar.gz"
}
