#pragma once
// The results of a sweep and how they are written (docs/results.md, docs/results.md).

#include <kbt/config/run_config.hpp>
#include <kbt/core/atomic_output.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/result_rows.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbt {

struct ValidationResults;  // kbt/validation/validation.hpp

struct SweepResults {
  std::vector<std::string> param_names;
  // Per param, whether every value of its axis is an integer (ParamSpec::is_integer):
  // stored as int64 in results files. Empty: none is.
  std::vector<bool> integer_params;
  std::string objective_metric;
  bool maximize = true;
  // Every row, one per simulated combo: in memory, in the run's checkpoint,
  // or in a results file (result_rows.hpp). Rows hold ascending combo ids.
  std::shared_ptr<const ResultRows> rows;
  // The best eligible rows by the objective, best first: the top-K (the
  // first `top_k` of them) and beyond it the rest of the verification
  // candidates of the run that made them.
  RowTable best;
  std::size_t top_k = 0;

  std::uint64_t n_rows() const { return rows ? rows->size() : 0; }
  RowTable top_k_rows() const { return best.first(top_k); }
};

// Key/value facts about a run (device, timings, versions, fallback reason...).
struct RunProfile {
  std::vector<std::pair<std::string, std::string>> text;
  std::vector<std::pair<std::string, double>> numbers;
  void set(const std::string& key, const std::string& value) { text.emplace_back(key, value); }
  void set(const std::string& key, double value) { numbers.emplace_back(key, value); }
};

// The verification stage's table (group /verify; docs/verify.md): the top-N
// candidates of the sweep re-run on the reference engine in fp64. Rows are in
// sweep rank order (rank_before = 1, 2, ...).
struct VerificationResults {
  std::vector<std::uint64_t> rows;         // [n] rows of SweepResults
  std::vector<std::uint64_t> combo_ids;    // [n]
  std::vector<std::string> param_names;
  std::vector<double> params;              // [n][param_names.size()] the candidates' values, row-major
  std::vector<std::uint64_t> rank_before;  // [n] 1-based rank by the sweep's objective
  std::vector<std::uint64_t> rank_after;   // [n] 1-based rank by the verified objective; 0 = not eligible
  std::vector<std::uint8_t> mismatch;      // [n] 1: verified metrics differ (bits) from the sweep's
  std::vector<std::uint8_t> rank_moved;    // [n] 1: |rank_after - rank_before| > rank_threshold (fp32 sweeps)
  std::vector<double> metrics;             // [n][n_metrics] verified metrics, row-major
  std::vector<double> sweep_metrics;       // [n][n_metrics] the sweep's metrics of the candidates (not stored in /verify)

  std::string selection;  // which candidates, e.g. "the best 50 of 5,000 rows (verify.top_n: auto, ...)"
  std::uint64_t window_begin = 0, window_end = 0;  // verified scoring window, bar indices [begin, end)
  std::string window;                              // the same, readable (bars and UTC times)
  bool same_window = true;       // the sweep's window: mismatch is meaningful
  Objective objective;           // the verified objective (ranks after)
  std::string sweep_precision = "fp64";
  bool mismatch_checked = false;  // same window and an fp64 sweep
  bool rank_checked = false;      // same window and objective and an fp32 sweep
  std::int64_t rank_threshold = 0;
  unsigned threads = 1;           // host threads used (results never depend on it)
  double seconds = 0;

  std::size_t n() const { return combo_ids.size(); }
  std::size_t n_mismatches() const;
  std::size_t n_rank_moved() const;
};

// Writes the results HDF5 file atomically (nothing left on failure): every
// row of results.rows (read a block at a time), the top-K, the config, the
// profile and, with `verification`, the /verify group.
void write_results_hdf5(const std::string& path, const SweepResults& results,
                        const std::string& config_yaml, const RunProfile& profile,
                        const VerificationResults* verification = nullptr,
                        const ValidationResults* validation = nullptr);
// The same into `out.temp_path()`, not committed: for a job whose outputs are
// committed together (AtomicOutputSet, include/kbt/core/atomic_output.hpp).
void write_results_hdf5(AtomicOutput& out, const SweepResults& results, const std::string& config_yaml,
                        const RunProfile& profile, const VerificationResults* verification = nullptr,
                        const ValidationResults* validation = nullptr);

// Copies the results file `in_path` to `out_path` (which may be the same path)
// with its /verify group replaced by `verification`; everything else is kept.
// Atomic: `out_path` is either untouched or complete.
void write_verification_hdf5(const std::string& in_path, const std::string& out_path,
                             const VerificationResults& verification);

// The same with the /validation group replaced by `validation` (kbt validate).
void write_validation_hdf5(const std::string& in_path, const std::string& out_path,
                           const ValidationResults& validation);

// A file beside a results file: its path without ".h5", then `suffix`
// ("r.h5" -> "r_topk.csv" for "_topk.csv").
std::string companion_path(const std::string& results_path, const std::string& suffix);

// <results path without .h5>_topk.csv: where `kbt run` writes the top-K CSV.
std::string top_k_csv_path_for(const std::string& results_path);

// Writes the top-K rows (rank, combo_id, params, metrics) as CSV, atomically;
// or into `out.temp_path()`, not committed.
void write_top_k_csv(const std::string& path, const SweepResults& results);
void write_top_k_csv(AtomicOutput& out, const SweepResults& results);

}  // namespace kbt

namespace kbt {

// Opens a results file written by write_results_hdf5 (or a finished run's
// checkpoint): its top-K rows, config, profile and /verify are read now; its
// rows (results.rows) are read from the file, a block at a time, when asked
// for (the file stays open while `results.rows` is alive). A file whose
// `complete` attribute is missing or not 1 is refused.
struct LoadedResults {
  SweepResults results;
  std::string config_yaml;
  RunProfile profile;
  std::optional<VerificationResults> verification;
  // /validation, when present (kbt/validation/validation.hpp; its period
  // returns are not read back).
  std::shared_ptr<const ValidationResults> validation;
  // A profile text entry, or "" when absent.
  std::string profile_text(const std::string& key) const;
};
LoadedResults read_results_hdf5(const std::string& path);

}  // namespace kbt
