// Opening a results file to re-run its combos (kbt verify, kbt plot --combo).

#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/data_digest.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/verify/verify.hpp>

#include <filesystem>

namespace kbt {

ResultsRerun open_results_for_rerun(const std::string& results_path) {
  ResultsRerun r;
  r.loaded = read_results_hdf5(results_path);
  r.config = parse_run_config(r.loaded.config_yaml, results_path + " /config", "");
  // The profile's data_path is absolute; the config's may be relative to a
  // config file that is elsewhere now.
  const std::string data_path = r.loaded.profile_text("data_path");
  if (!data_path.empty()) r.config.data_path = data_path;
  if (!std::filesystem::exists(r.config.data_path))
    throw Error(ErrorCategory::io, results_path + ": the run's data file '" + r.config.data_path +
                                       "' (profile data_path) does not exist");
  r.bars = load_run_data(r.config);
  for (const auto& [k, v] : r.loaded.profile.numbers)
    if (k == "bars" && v != static_cast<double>(r.bars.n_bars()))
      throw Error(ErrorCategory::data_format, r.config.data_path + ": has " + std::to_string(r.bars.n_bars()) +
                                                  " bars, the run of " + results_path + " had " +
                                                  std::to_string(static_cast<long long>(v)) +
                                                  " (the data changed since the run)");
  // Results written before kbt recorded the digest have none: nothing to compare.
  const std::string recorded = r.loaded.profile_text("data_digest");
  if (!recorded.empty()) {
    const std::string now = data_digest(r.bars);
    if (now != recorded)
      throw Error(ErrorCategory::data_format, r.config.data_path + ": the data changed since the run of " + results_path +
                                                  " (data digest " + now + ", the run's " + recorded +
                                                  "): re-run the sweep on this data");
  }
  return r;
}

}  // namespace kbt
