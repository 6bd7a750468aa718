// libFuzzer target: load_bars_hdf5 on arbitrary bytes written to a scratch file.
// kbt::Error (data_format, io) is the expected answer. The read runs in this
// process (not kbt's default reader child) so that libFuzzer sees its coverage
// and its crashes: the fuzzer's job is to find them.

#include <kbt/data/data_io.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <hdf5.h>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  kbt::set_hdf5_read_isolation(kbt::Hdf5ReadIsolation::in_process);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = kbt::fuzz::write_scratch_file("bars.h5", data, size);
  kbt::fuzz::run_expecting_kbt_errors([&] { (void)kbt::load_bars_hdf5(path); });
  // Whatever happened, kbt must have closed every file, dataset, type and space
  // it opened (tests/fuzz/lsan.supp silences HDF5's own leaks, not these).
  const ssize_t open_objects = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (open_objects != 0) {
    std::fprintf(stderr, "load_bars_hdf5 left %zd HDF5 object(s) open\n", open_objects);
    std::abort();
  }
  return 0;
}
