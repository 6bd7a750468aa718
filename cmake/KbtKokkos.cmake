# KbtKokkos.cmake — the one place that papers over the two shapes of Kokkos
# installations kbt meets:
#  * Debian's libtrilinos-kokkos-dev 3.4.01 (TriBITS config): Serial only, a
#    Kokkos::kokkos target with a broken include directory, and plain
#    ${Kokkos_INCLUDE_DIRS}/${Kokkos_LIBRARIES} variables.
#  * A Kokkos installed by its own CMake (4.x/5.x selected with
#    -DKokkos_ROOT=..., or the 3.4.01 that scripts/build.sh builds with OpenMP
#    from Debian's source package) that exports Kokkos::kokkos properly.
# After this module, every target links Kokkos::kokkos, and kbt links
# Kokkos Kernels as kbt::kokkoskernels (the validation stage's gemm,
# docs/building.md "Kokkos Kernels"): Debian's libtrilinos-kokkos-kernels-dev
# (TriBITS: target trilinos_kokkoskernels) or a modern Kokkos::kokkoskernels.

# No version range: Debian's config only accepts its own major version.
find_package(Kokkos REQUIRED)
message(STATUS "kbt: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR}")

# The TriBITS shape names its libraries trilinos_*; a Kokkos 3.4 built on its
# own (scripts/kokkos-from-debian.sh) exports Kokkos::kokkos like 4.x does.
if(Kokkos_LIBRARIES MATCHES "trilinos_kokkoscore")
  set(KBT_KOKKOS_TRIBITS ON)
  # The TriBITS config points Kokkos::kokkos at /usr/lib/include; rebuild it
  # from the variables, which are right.
  if(NOT TARGET Kokkos::kokkos)
    add_library(Kokkos::kokkos INTERFACE IMPORTED)
  endif()
  set_target_properties(Kokkos::kokkos PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${Kokkos_INCLUDE_DIRS}"
    INTERFACE_LINK_LIBRARIES "${Kokkos_LIBRARIES};${Kokkos_TPL_LIBRARIES}")
else()
  set(KBT_KOKKOS_TRIBITS OFF)
endif()

# Which execution spaces this Kokkos enables; drives the per-backend tests.
set(KBT_KOKKOS_DEVICES "")
foreach(_space SERIAL OPENMP CUDA)
  if(KBT_KOKKOS_TRIBITS)
    # TriBITS 3.4 only ever ships Serial on Debian; read the config header.
    find_file(_kbt_kokkos_cfg KokkosCore_config.h PATHS ${Kokkos_INCLUDE_DIRS} NO_DEFAULT_PATH)
    file(STRINGS "${_kbt_kokkos_cfg}" _hit REGEX "^#define KOKKOS_ENABLE_${_space}$")
    unset(_kbt_kokkos_cfg CACHE)
  else()
    kokkos_check(DEVICES ${_space} RETURN_VALUE _hit)
  endif()
  if(_hit)
    list(APPEND KBT_KOKKOS_DEVICES ${_space})
  endif()
endforeach()
message(STATUS "kbt: Kokkos execution spaces: ${KBT_KOKKOS_DEVICES}")

# Spaces this build must have (scripts/build.sh asks for OPENMP when it built
# Kokkos itself): a Kokkos without one is an error here, not a one-core kbt;
# the CLI test of `kbt info` checks them too.
set(KBT_REQUIRE_SPACES "" CACHE STRING "Kokkos execution spaces the build must have (e.g. OPENMP)")
foreach(_space ${KBT_REQUIRE_SPACES})
  if(NOT _space IN_LIST KBT_KOKKOS_DEVICES)
    message(FATAL_ERROR "kbt: KBT_REQUIRE_SPACES asks for ${_space}, but the Kokkos from ${Kokkos_DIR} "
      "enables only ${KBT_KOKKOS_DEVICES} (docs/building.md \"Every core\")")
  endif()
endforeach()

# C++ standard: 17 is the floor; Kokkos 5 requires 20 and pushes it through its
# target, so only raise ours to match.
if(Kokkos_VERSION VERSION_GREATER_EQUAL 5)
  set(KBT_CXX_STANDARD 20)
else()
  set(KBT_CXX_STANDARD 17)
endif()

# Floating-point rules for bit-identical results on every execution space
# (docs/building.md): no FMA contraction anywhere. Applied PUBLIC to kbt so that
# kernels instantiated from kbt headers in user code follow them too.
#  * GCC/Clang: -ffp-contract=off (GCC contracts by default in GNU and C++ modes
#    as soon as the target has FMA, e.g. -march=native; Clang's CUDA mode does).
#  * nvcc (Kokkos built with nvcc_wrapper): --fmad=false, for the device code.
function(kbt_strict_floating_point target)
  target_compile_options(${target} PUBLIC
    $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang,AppleClang>:-ffp-contract=off>)
  if("CUDA" IN_LIST KBT_KOKKOS_DEVICES AND Kokkos_CXX_COMPILER_ID STREQUAL "NVIDIA")
    target_compile_options(${target} PUBLIC $<$<COMPILE_LANGUAGE:CXX>:--fmad=false>)
  endif()
endfunction()

# A CUDA Kokkos used through its launch compiler (-DKokkos_ROOT alone, no
# nvcc_wrapper as CMAKE_CXX_COMPILER): Kokkos swaps the compiler per
# translation unit, and only when the command starts with the C++ compiler
# itself. Behind a compiler launcher (ccache, `env ... ccache`) it runs the
# host compiler with nvcc's flags (`c++: error: unrecognized command-line
# option '-arch=sm_90'`): said here, before the first compile.
if("CUDA" IN_LIST KBT_KOKKOS_DEVICES AND NOT CMAKE_CXX_COMPILER MATCHES "nvcc")
  set(KBT_CUDA_VIA_LAUNCH_COMPILER ON)
else()
  set(KBT_CUDA_VIA_LAUNCH_COMPILER OFF)
endif()
if(KBT_CUDA_VIA_LAUNCH_COMPILER AND CMAKE_CXX_COMPILER_LAUNCHER)
  message(FATAL_ERROR "kbt: this Kokkos compiles CUDA through its launch compiler, which cannot run behind "
    "CMAKE_CXX_COMPILER_LAUNCHER (${CMAKE_CXX_COMPILER_LAUNCHER}): configure with "
    "-DCMAKE_CXX_COMPILER=<kokkos>/bin/nvcc_wrapper to keep the launcher, or without the launcher "
    "(docs/building.md \"CUDA\")")
endif()

# A Kokkos whose default-constructed Views crash (kokkos/kokkos#7464, GCC 12 with
# the mdspan-based View) is refused here rather than by a segfault in the first
# sweep. Run once per Kokkos installation; -DKBT_CHECK_KOKKOS_VIEWS=OFF skips it
# (e.g. when cross-compiling).
option(KBT_CHECK_KOKKOS_VIEWS "Check at configure time that this Kokkos' Views work with this compiler" ON)
# Through the launch compiler, a try_run project gets Kokkos' nvcc flags with
# the host compiler as well. The probe's subject, GCC 12 with the mdspan View,
# is then the host compiler's; it is skipped with this message rather than
# failing the configuration.
if(KBT_CHECK_KOKKOS_VIEWS AND KBT_CUDA_VIA_LAUNCH_COMPILER)
  message(STATUS "kbt: Kokkos View probe skipped: this CUDA Kokkos compiles through its launch compiler, "
    "which a configure-time try_run cannot use (configure with -DCMAKE_CXX_COMPILER=<kokkos>/bin/nvcc_wrapper "
    "to run it; docs/building.md \"CUDA\")")
  set(KBT_CHECK_KOKKOS_VIEWS_NOW OFF)
else()
  set(KBT_CHECK_KOKKOS_VIEWS_NOW ${KBT_CHECK_KOKKOS_VIEWS})
endif()
if(KBT_CHECK_KOKKOS_VIEWS_NOW AND NOT KBT_KOKKOS_TRIBITS AND NOT CMAKE_CROSSCOMPILING
   AND NOT KBT_KOKKOS_VIEWS_CHECKED STREQUAL "${Kokkos_DIR};${CMAKE_CXX_COMPILER}")
  try_run(_kbt_probe_run _kbt_probe_compile
    ${CMAKE_BINARY_DIR}/kbt_view_probe ${CMAKE_CURRENT_LIST_DIR}/kbt_view_probe.cpp
    LINK_LIBRARIES Kokkos::kokkos
    CXX_STANDARD ${KBT_CXX_STANDARD}
    COMPILE_OUTPUT_VARIABLE _kbt_probe_compile_out
    RUN_OUTPUT_VARIABLE _kbt_probe_run_out)
  if(NOT _kbt_probe_compile)
    message(FATAL_ERROR "kbt: cannot compile a minimal Kokkos program against ${Kokkos_DIR}:\n"
      "${_kbt_probe_compile_out}")
  endif()
  if(_kbt_probe_run EQUAL 127 OR _kbt_probe_run_out MATCHES "error while loading shared libraries")
    # The probe could not start (e.g. a CUDA build on a machine without the
    # driver's libcuda): nothing was learnt about Views.
    message(WARNING "kbt: the Kokkos View probe could not run on this machine (${_kbt_probe_run_out}); "
      "Views were not checked (docs/building.md, kokkos/kokkos#7464)")
  elseif(NOT _kbt_probe_run EQUAL 0)
    message(FATAL_ERROR "kbt: default-constructed Kokkos::View objects crash with this compiler "
      "(${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}) and Kokkos ${Kokkos_VERSION} "
      "from ${Kokkos_DIR} (probe exit: ${_kbt_probe_run}). This is kokkos/kokkos#7464: GCC 12 "
      "with Kokkos' mdspan-based View. Rebuild Kokkos with -DKokkos_ENABLE_IMPL_VIEW_LEGACY=ON, "
      "or use Clang or GCC >= 13 for Kokkos and kbt (docs/building.md).")
  else()
    set(KBT_KOKKOS_VIEWS_CHECKED "${Kokkos_DIR};${CMAKE_CXX_COMPILER}" CACHE INTERNAL "")
    message(STATUS "kbt: Kokkos View probe passed")
  endif()
endif()

# Kokkos Kernels, in either shape, as the imported target kbt::kokkoskernels
# (imported, so that kbt's exported targets can name it and a consumer's
# find_package(kbt), which includes this file, recreates it).
# Next to the Kokkos found above first (-DKokkos_ROOT=PREFIX holds both),
# then the default places.
get_filename_component(_kbt_kokkos_prefix "${Kokkos_DIR}/../../.." ABSOLUTE)
find_package(KokkosKernels REQUIRED HINTS "${_kbt_kokkos_prefix}" "${Kokkos_DIR}/..")
message(STATUS "kbt: Kokkos Kernels ${KokkosKernels_VERSION} from ${KokkosKernels_DIR}")
if(NOT TARGET kbt::kokkoskernels)
  add_library(kbt::kokkoskernels INTERFACE IMPORTED)
  if(TARGET Kokkos::kokkoskernels)
    set_target_properties(kbt::kokkoskernels PROPERTIES INTERFACE_LINK_LIBRARIES Kokkos::kokkoskernels)
  else()
    set_target_properties(kbt::kokkoskernels PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${KokkosKernels_INCLUDE_DIRS}"
      INTERFACE_LINK_LIBRARIES "${KokkosKernels_LIBRARIES};${KokkosKernels_TPL_LIBRARIES}")
  endif()
endif()
