// libFuzzer target: read_results_hdf5 on arbitrary bytes written to a scratch
// file, then every row it holds (what `kbt show --sort` and `kbt plot` read).
// kbt::Error (data_format, io) is the expected answer. As in fuzz_hdf5, the
// read runs in this process, not kbt's reader child: the fuzzer's job is to
// see the crashes that the child turns into data_format errors.

#include <kbt/data/data_io.hpp>
#include <kbt/output/results.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <hdf5.h>

#include "fuzz_support.hpp"
#include "output/results_io.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  kbt::set_hdf5_read_isolation(kbt::Hdf5ReadIsolation::in_process);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = kbt::fuzz::write_scratch_file("results.h5", data, size);
  kbt::fuzz::run_expecting_kbt_errors([&] {
    const kbt::LoadedResults loaded = kbt::read_results_hdf5(path);
    kbt::detail::read_every_row(*loaded.results.rows);
  });
  const ssize_t open_objects = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (open_objects != 0) {
    std::fprintf(stderr, "read_results_hdf5 left %zd HDF5 object(s) open\n", open_objects);
    std::abort();
  }
  return 0;
}
