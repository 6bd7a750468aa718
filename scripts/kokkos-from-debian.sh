#!/usr/bin/env bash
# Kokkos 3.4.01 + Kokkos Kernels 3.4.01 with OpenMP, built from Debian's own
# source package (trilinos, which Debian's Serial-only libtrilinos-kokkos-dev is
# built from) into a cache outside the repository; prints the prefix on its
# last line of standard output, for kbt's -DKokkos_ROOT (docs/building.md
# "Every core"). scripts/build.sh calls it unless a Kokkos is chosen.
#
#   scripts/kokkos-from-debian.sh [PREFIX]
#
# Only Debian's registry is used: the source package is fetched with apt from
# a private deb-src list (the system's apt sources are not changed), unpacked
# down to packages/kokkos and packages/kokkos-kernels, and built by
# scripts/build-kokkos.sh. A second run with the same compiler does nothing.
#
# Environment:
#   KBT_KOKKOS_CACHE     PREFIX's default parent (default /var/cache/kbt as
#                        root, else ${XDG_CACHE_HOME:-~/.cache}/kbt)
#   KBT_DEBIAN_MIRROR    the Debian mirror (default http://deb.debian.org/debian)
#   KBT_BUILD_JOBS       parallel jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "[kokkos-from-debian] $*" >&2; }
die() { say "error: $*"; exit 1; }

if [ "$(id -u)" -eq 0 ]; then cache=${KBT_KOKKOS_CACHE:-/var/cache/kbt}; else cache=${KBT_KOKKOS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbt}; fi
prefix=${1:-$cache/kokkos-3.4.01-openmp-debian}
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "cannot read VERSION_CODENAME from /etc/os-release (a Debian system is needed)"
# What the cache depends on: the compiler and the build scripts.
compiler="$("${CXX:-c++}" --version | head -1); $(cat scripts/build-kokkos.sh "$0" | sha256sum | cut -c1-16)"
marker=$prefix/.kbt-kokkos-from-debian

# Cached: the same Debian release and compiler built it before.
if [ -f "$marker" ] && [ "$(cat "$marker")" = "$codename; $compiler" ] && [ -f "$prefix/.kbt-build-kokkos.stamp" ]; then
  say "cached: $prefix ($(grep -m1 '^# built' "$prefix/.kbt-build-kokkos.stamp" | sed 's/^# //'))"
  echo "$prefix"
  exit 0
fi

# The source package, through a private apt state: a deb-src list for this
# release, its own package lists and lock.
src=$cache/debian-source
apt_dir=$src/apt
mkdir -p "$apt_dir/lists/partial" || die "cannot create $apt_dir"
cat > "$apt_dir/deb-src.sources" <<EOF
Types: deb-src
URIs: ${KBT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
Suites: $codename
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt_private=(-q -o "Dir::Etc::SourceList=$apt_dir/deb-src.sources" -o Dir::Etc::SourceParts=/nonexistent
  -o "Dir::State::Lists=$apt_dir/lists")
t0=$SECONDS
say "fetching Debian's trilinos source package ($codename)"
apt-get "${apt_private[@]}" update >&2 || die "apt-get update of the deb-src list failed (is $codename's mirror reachable?)"
work=$(mktemp -d "$src/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get "${apt_private[@]}" source --download-only trilinos >&2) \
  || die "apt-get source trilinos failed"
dsc=$(ls "$work"/trilinos_*.dsc 2>/dev/null | head -1)
orig=$(ls "$work"/trilinos_*.orig.tar.* 2>/dev/null | head -1)
[ -n "$dsc" ] && [ -n "$orig" ] || die "the trilinos source package has no .dsc or .orig archive"
version=$(sed -n 's/^Version: //p' "$dsc")
say "trilinos $version ($(du -h "$orig" | cut -f1)) in $((SECONDS - t0)) s; unpacking Kokkos and Kokkos Kernels"
tree=$src/trilinos-$version
rm -rf "$tree"
mkdir -p "$tree"
tar -xf "$orig" -C "$tree" --strip-components=1 --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
rm -rf "$work"
trap - EXIT

# Kokkos 3.x is built as C++17 (kbt's standard against it).
KBT_KOKKOS_CXX_STANDARD=17 bash scripts/build-kokkos.sh "$tree/packages/kokkos" "$prefix" openmp \
  "$tree/packages/kokkos-kernels" >&2
echo "$codename; $compiler" > "$marker"
echo "$prefix"
