// load_bars: a data path as configs and commands name it, HDF5 or CSV.

#include <kbt/core/error.hpp>
#include <kbt/data/data_io.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace kbt {

BarData load_bars(const std::string& path, const std::vector<std::string>& symbols_subset, ExternalData external,
                  const std::string& symbols_where) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext != ".csv") return load_bars_hdf5(path, symbols_subset, external);
  CsvImportOptions options;
  options.bars.push_back({std::string(), path});
  BarData bars = import_csv(options);
  for (const std::string& name : symbols_subset)
    if (name != bars.symbols.at(0))
      throw Error(ErrorCategory::config, (symbols_where.empty() ? "" : symbols_where + ": ") + "symbol '" + name + "' is not in " + path + " (a CSV file holds one symbol, " +
                                             bars.symbols.at(0) + ", named after the file; for several symbols, "
                                             "kbt data import them into one HDF5 file)");
  return bars;
}

}  // namespace kbt
