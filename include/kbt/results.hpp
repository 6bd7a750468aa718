#pragma once
// The results of a sweep and how they are written (SPEC §8, docs/results.md).

#include <kbt/metrics.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kbt {

struct SweepResults {
  std::vector<std::string> param_names;
  std::vector<std::uint64_t> combo_ids;  // [n_rows], ascending
  std::vector<double> params;            // [n_rows][param_names.size()] row-major
  std::vector<double> metrics;           // [n_rows][n_metrics] row-major
  std::vector<std::size_t> top_k;        // row indices, best first
  std::string objective_metric;
  bool maximize = true;

  std::size_t n_rows() const { return combo_ids.size(); }
};

// Key/value facts about a run (device, timings, versions, fallback reason...).
struct RunProfile {
  std::vector<std::pair<std::string, std::string>> text;
  std::vector<std::pair<std::string, double>> numbers;
  void set(const std::string& key, const std::string& value) { text.emplace_back(key, value); }
  void set(const std::string& key, double value) { numbers.emplace_back(key, value); }
};

// Writes the results HDF5 file atomically (nothing left on failure).
void write_results_hdf5(const std::string& path, const SweepResults& results,
                        const std::string& config_yaml, const RunProfile& profile);

// Writes the top-K rows (rank, combo_id, params, metrics) as CSV, atomically.
void write_top_k_csv(const std::string& path, const SweepResults& results);

}  // namespace kbt

namespace kbt {

// Reads a results file written by write_results_hdf5 (params, metrics, top-K,
// config). A file whose `complete` attribute is missing is refused.
struct LoadedResults {
  SweepResults results;
  std::string config_yaml;
};
LoadedResults read_results_hdf5(const std::string& path);

}  // namespace kbt
