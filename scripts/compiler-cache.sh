# Sourced by the build scripts (build.sh, sanitize.sh, fuzz.sh, openmp-stage.sh):
# compiles through ccache when it is installed, with one cache shared by every
# clone on this machine, so that CI's clean clone rebuilds only what changed
# (docs/building.md "Compiler cache"). Sets `compiler_cache_args` for cmake
# configure. KBT_CCACHE=0 turns it off; CCACHE_DIR chooses another cache.
compiler_cache_args=()
if [[ ${KBT_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
  cache_dir=${CCACHE_DIR:-}
  # A machine-wide cache where it can be written (CI runs as root), else ccache's own default.
  if [[ -z $cache_dir ]] && mkdir -p /var/cache/kbt/ccache 2>/dev/null && [[ -w /var/cache/kbt/ccache ]]; then
    cache_dir=/var/cache/kbt/ccache
  fi
  # The settings travel in the launcher, so that a later `cmake --build` by
  # hand uses the same cache. Paths under the clone hash as relative ones and
  # the working directory is not hashed: a clone elsewhere hits the same
  # entries (debug info then names the clone that compiled first).
  launcher="env;CCACHE_BASEDIR=$PWD;CCACHE_NOHASHDIR=1;CCACHE_MAXSIZE=8G${cache_dir:+;CCACHE_DIR=$cache_dir};ccache"
  compiler_cache_args=("-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher" "-DCMAKE_C_COMPILER_LAUNCHER=$launcher")
fi
