// libFuzzer target: CSV import from bytes written to scratch files. The input is
// split at lines "===": part 1 is the OHLCV file of symbol AAA, part 2 (when
// present) that of BBB, part 3 an exo series `vix`, part 4 AAA's funding rates.
// kbt::Error (data_format, io) is the expected answer.

#include <kbt/data/data_io.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (parts.size() < 3) {
    const std::size_t cut = text.find("\n===\n", begin);
    if (cut == std::string::npos) break;
    parts.push_back(text.substr(begin, cut + 1 - begin));
    begin = cut + 5;
  }
  parts.push_back(text.substr(begin));

  const auto write = [](const char* name, const std::string& content) {
    return kbt::fuzz::write_scratch_file(name, reinterpret_cast<const std::uint8_t*>(content.data()),
                                         content.size());
  };
  kbt::CsvImportOptions options;
  options.bars.push_back({"AAA", write("AAA.csv", parts[0])});
  if (parts.size() > 1) options.bars.push_back({"", write("BBB.csv", parts[1])});
  if (parts.size() > 2) options.exo["vix"] = write("vix.csv", parts[2]);
  if (parts.size() > 3) options.funding["AAA"] = write("funding.csv", parts[3]);

  kbt::fuzz::run_expecting_kbt_errors([&] {
    kbt::CsvImportNotes notes;
    (void)kbt::import_csv(options, &notes);
  });
  return 0;
}
