// libFuzzer target: read_actions_hdf5, what a simulate job reads from
// `simulate.actions` (docs/simulate.md), on arbitrary bytes written to a
// scratch file. kbt::Error (data_format, io) is the expected answer; a shape
// the file cannot hold must be refused before it is allocated. In this
// process, not kbt's reader child, as in fuzz_results: the fuzzer is there to
// see the crashes that the child turns into data_format errors.
//
// The seed is an actions file of the layout kbt reads (float64 [2][2][64],
// one contiguous dataset and one chunked + deflated), written by the target
// itself: KBT_FUZZ_WRITE_SEED=PATH fuzz_actions writes it to PATH and exits
// (scripts/fuzz.sh does this before fuzzing).

#include <kbt/data/data_io.hpp>
#include <kbt/simulate/simulate_job.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <hdf5.h>

#include "fuzz_support.hpp"

namespace {

void write_seed(const char* path) {
  const hsize_t dims[3] = {2, 2, 64};
  std::vector<double> values(2 * 2 * 64);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 5) / 2 - 1;
  const hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space = H5Screate_simple(3, dims, nullptr);
  const hid_t deflated = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(deflated, 3, dims);
  H5Pset_deflate(deflated, 6);
  for (const auto& [name, dcpl] : {std::pair<const char*, hid_t>{"actions", H5P_DEFAULT}, {"deflated", deflated}}) {
    const hid_t set = H5Dcreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(set);
  }
  H5Pclose(deflated);
  H5Sclose(space);
  if (H5Fclose(file) < 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  kbt::set_hdf5_read_isolation(kbt::Hdf5ReadIsolation::in_process);
  kbt::fuzz::write_seed_if_asked(write_seed);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = kbt::fuzz::write_scratch_file("actions.h5", data, size);
  for (const char* dataset : {"actions", "deflated"})
    kbt::fuzz::run_expecting_kbt_errors([&] { kbt::read_actions_hdf5(path, dataset); });
  const ssize_t open_objects = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (open_objects != 0) {
    std::fprintf(stderr, "read_actions_hdf5 left %zd HDF5 object(s) open\n", open_objects);
    std::abort();
  }
  return 0;
}
