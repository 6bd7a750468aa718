// libFuzzer target: load_bars_hdf5 on arbitrary bytes written to a scratch file.
// kbt::Error (data_format, io) is the expected answer.

#include <kbt/data_io.hpp>

#include <cstdint>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = kbt::fuzz::write_scratch_file("bars.h5", data, size);
  kbt::fuzz::run_expecting_kbt_errors([&] { (void)kbt::load_bars_hdf5(path); });
  return 0;
}
