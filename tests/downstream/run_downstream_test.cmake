# ctest driver (cmake -P): build tests/downstream's program as a user's project
# would, run it and check its output. KBT_CONSUME chooses how it gets kbt:
#   install (default): install the kbt build in KBT_BUILD_DIR into a scratch
#     prefix, find_package(kbt) there (tests/downstream);
#   subdirectory: add_subdirectory(KBT_SOURCE) with the Kokkos of that build
#     (KBT_KOKKOS_DIR) and its compiler launcher (tests/downstream_subdirectory).
foreach(_var KBT_BUILD_DIR KBT_DOWNSTREAM_SOURCE KBT_SCRATCH KBT_CXX_COMPILER KBT_GENERATOR KBT_EXPECTED_SPACES)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_downstream_test.cmake: ${_var} is not set")
  endif()
endforeach()

if(NOT KBT_CONSUME)
  set(KBT_CONSUME install)
endif()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${_rc}):\n${_out}")
  endif()
  set(step_output "${_out}" PARENT_SCOPE)
endfunction()

if(KBT_CONSUME STREQUAL "subdirectory")
  # The sub-build is kept between runs: a rerun recompiles only what changed.
  set(_configure ${CMAKE_COMMAND} -S ${KBT_DOWNSTREAM_SOURCE} -B ${KBT_SCRATCH}/build
    -G ${KBT_GENERATOR} -DCMAKE_CXX_COMPILER=${KBT_CXX_COMPILER} -DKBT_SOURCE=${KBT_SOURCE}
    -DKokkos_DIR=${KBT_KOKKOS_DIR} -DCMAKE_BUILD_TYPE=${KBT_BUILD_TYPE})
  if(KBT_KOKKOSKERNELS_DIR)
    list(APPEND _configure -DKokkosKernels_DIR=${KBT_KOKKOSKERNELS_DIR})
  endif()
  if(KBT_COMPILER_LAUNCHER)  # a list ('|'-separated here): through an initial cache, as one value
    string(REPLACE "|" ";" _launcher "${KBT_COMPILER_LAUNCHER}")
    file(WRITE ${KBT_SCRATCH}/launcher.cmake "set(CMAKE_CXX_COMPILER_LAUNCHER \"${_launcher}\" CACHE STRING \"\")\n")
    list(APPEND _configure -C ${KBT_SCRATCH}/launcher.cmake)
  endif()
  set(KBT_MPIEXEC "")  # the sub-build has no MPI
else()
  file(REMOVE_RECURSE ${KBT_SCRATCH})
  set(_prefix ${KBT_SCRATCH}/prefix)
  run_step("install" ${CMAKE_COMMAND} --install ${KBT_BUILD_DIR} --prefix ${_prefix})
  set(_configure ${CMAKE_COMMAND} -S ${KBT_DOWNSTREAM_SOURCE} -B ${KBT_SCRATCH}/build
    -G ${KBT_GENERATOR} -DCMAKE_PREFIX_PATH=${_prefix} -DCMAKE_CXX_COMPILER=${KBT_CXX_COMPILER})
endif()
if(KBT_CXX_FLAGS)  # a sanitizer build: the static libkbt needs the same runtime
  list(APPEND _configure "-DCMAKE_CXX_FLAGS=${KBT_CXX_FLAGS}")
endif()
if(KBT_CXX_STANDARD)
  list(APPEND _configure -DCMAKE_CXX_STANDARD=${KBT_CXX_STANDARD})
endif()
run_step("configure downstream" ${_configure})
string(TIMESTAMP _start "%s")
run_step("build downstream" ${CMAKE_COMMAND} --build ${KBT_SCRATCH}/build)
string(TIMESTAMP _end "%s")
math(EXPR _seconds "${_end} - ${_start}")
message(STATUS "downstream build (${KBT_CONSUME}): ${_seconds} s")
set(ENV{OMP_PROC_BIND} false)  # quiets Kokkos' OpenMP binding advice
run_step("run downstream" ${KBT_SCRATCH}/build/kbt_downstream)

message(STATUS "${step_output}")
set(_expected "kbt downstream: kokkos [0-9.]+ spaces=${KBT_EXPECTED_SPACES} growth=1.126825 1.268242 1.425761")
if(NOT step_output MATCHES "${_expected}")
  message(FATAL_ERROR "downstream output does not match '${_expected}':\n${step_output}")
endif()
# kbt::print_configuration, as `kbt info` prints it.
if(NOT step_output MATCHES "kbt downstream configuration: version [0-9]+\nkbt [0-9.]+ \\([^)]*\\)\nKokkos [0-9.]+\nHDF5 [0-9.]+\nMPI: (yes|no)")
  message(FATAL_ERROR "downstream output has no kbt::print_configuration:\n${step_output}")
endif()
# 3 x 3 combos in Views on the default space, the top 3 equal to the reference's.
set(_expected_sweep "kbt downstream sweep: combos=9 top=3 agree=yes")
if(NOT step_output MATCHES "${_expected_sweep}")
  message(FATAL_ERROR "downstream output does not match '${_expected_sweep}':\n${step_output}")
endif()
# Half of the 9 combos through the engine interface on two windows, same bits as the reference.
set(_expected_engines "kbt downstream engines: combos=4 windows=2 agree=yes")
if(NOT step_output MATCHES "${_expected_engines}")
  message(FATAL_ERROR "downstream output does not match '${_expected_engines}':\n${step_output}")
endif()
# With MPI (KBT_MPIEXEC given): the sweep shared among 2 ranks of the host
# code's communicator equals the single process's.
if(KBT_MPIEXEC)
  if(NOT EXISTS ${KBT_SCRATCH}/build/kbt_downstream_mpi)
    message(FATAL_ERROR "kbt has MPI, but the downstream MPI example was not built (find_package(kbt) found no MPI?)")
  endif()
  separate_arguments(_mpiexec UNIX_COMMAND "${KBT_MPIEXEC}")
  set(ENV{OMPI_MCA_btl_vader_single_copy_mechanism} none)
  if(NOT KBT_MPIEXEC_NUMPROC_FLAG)
    set(KBT_MPIEXEC_NUMPROC_FLAG -n)
  endif()
  run_step("run downstream under MPI" ${_mpiexec} ${KBT_MPIEXEC_NUMPROC_FLAG} 2 ${KBT_SCRATCH}/build/kbt_downstream_mpi)
  message(STATUS "${step_output}")
  if(NOT step_output MATCHES "kbt downstream mpi: ranks=2 combos=[1-9][0-9]* top=5 same=yes")
    message(FATAL_ERROR "downstream MPI output does not match:\n${step_output}")
  endif()
endif()
