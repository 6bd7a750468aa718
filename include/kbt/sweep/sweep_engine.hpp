#pragma once
// A sweep engine simulates a range of a prepared sweep's combos, [begin, end),
// on one or several scoring windows, and selects each window's top-K of the
// range: the seam that the chunk driver (sweep_driver.hpp), MPI (a range per
// rank) and walk-forward validation (several windows per pass) share. Two
// implementations: the reference engine (plain host code, the oracle) and the
// kernel engine (the sweep kernel on a Kokkos space, docs/sweep.md; several
// windows in one pass over the bars). Both give the same fp64 bits.

#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/sweep/kernel_sweep_options.hpp>
#include <kbt/sweep/prepared_sweep.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

// What one run() cost, by phase (seconds; kernel engines fence each phase).
struct EnginePhases {
  double upload = 0, fold_kernels = 0, kernel = 0, top_k = 0, download = 0;
  std::size_t hoist_tiles_computed = 0;
  std::size_t hoisted_series_computed = 0;  // the windows its combos use, computed (not already resident)
  // Passes of the sweep kernel over the combos' bars (kernel engines: one per
  // call, whatever the number of windows; the reference engine: 0).
  std::size_t passes = 0;
  std::size_t kernel_bytes = 0;  // every View of the kernel and its series (max over calls)
};

struct EngineOutput {
  // [window][combo in range][n_metrics], row-major; the metrics outside the
  // sweep's metric set (PreparedSweep::metrics) are NaN.
  std::vector<double> metrics;
  // Per window: up to k rows of the range (0 = `begin`), best first by the
  // objective (kbt::select_top_k's order).
  std::vector<std::vector<std::size_t>> top_k;
  EnginePhases phases;
};

// The validation stage's candidates, re-simulated (SweepEngine::run_candidates).
struct CandidateRuns {
  std::vector<double> metrics;         // [k][n_metrics], every metric
  std::vector<double> period_returns;  // [P][k], row-major (when periods were asked for)
};

// The per-window top-K each run() selects.
struct EngineTopK {
  Objective objective;
  std::size_t k = 0;
};

class SweepEngine {
 public:
  virtual ~SweepEngine() = default;
  // "reference", "serial", "openmp", "cuda".
  virtual const std::string& device() const = 0;
  // Simulates combos [begin, end) of the prepared sweep on every window (each
  // a window of the data, begin < end <= n_bars); an empty list means the
  // sweep's own window (PreparedSweep::sim.window).
  virtual EngineOutput run(std::size_t begin, std::size_t end, const std::vector<ScoringWindow>& windows,
                           const EngineTopK& top_k) = 0;
  // Where the engine selects top-Ks: "host" or the device's name.
  virtual std::string top_k_selected_on() const = 0;
  // All 21 metrics of the sweep's rows `rows` (ascending) on `window` (by
  // default the sweep's own): [row][n_metrics], row-major. The best rows of a
  // sweep run with a smaller metric set get their other metrics here, and the
  // validation stage its candidates' on other windows (on the same device).
  virtual std::vector<double> all_metrics(const std::vector<std::uint64_t>& rows,
                                          const std::optional<ScoringWindow>& window = std::nullopt) = 0;
  // The validation stage's candidates (docs/validation.md "Periods"): every
  // metric of each combo of `params` ([k][n_params], the sweep's param
  // order; a sweep without params: empty, its one combo) on `window` and, with `period_last` (the last window bar of each
  // period), their per-period returns, on the engine's device.
  virtual CandidateRuns run_candidates(const std::vector<double>& params, const ScoringWindow& window,
                                       const std::vector<std::size_t>& period_last) = 0;
};

// The reference engine on `threads` host threads (0 = all cores). Series that
// depend on no param, or only on a window, are computed once and shared; a
// combo's series are evaluated once for all of its windows.
std::unique_ptr<SweepEngine> make_reference_engine(const PreparedSweep& sweep, const BarData& bars, int threads = 0);

// The kernel engine on the space named `device`, in fp32 or fp64. Plans the
// hoisted series, uploads the program and data and allocates the series'
// memory now: what it refuses (a strategy the kernel cannot run, a memory
// budget too small) is refused before anything runs. Reports the plan's and
// runner's facts through `facts` when given (RunProfile keys).
struct KernelEngineFacts {
  double seconds_plan = 0, seconds_setup = 0;
  std::size_t hoisted_series = 0, materialized_series = 0, series_bytes = 0;
  std::size_t hoist_rows_resident = 0, hoist_tiles = 0;
  bool hoist_recomputes_along_rows = false;
};
std::unique_ptr<SweepEngine> make_kernel_engine(const PreparedSweep& sweep, const BarData& bars,
                                                const std::string& device, bool fp32,
                                                const KernelSweepOptions& options = {},
                                                KernelEngineFacts* facts = nullptr);

// The validation stage's engine for the run's device: the reference engine on
// `threads` host threads for "reference", else the kernel engine on that space
// in fp64 (its precision whatever the sweep's).
std::unique_ptr<SweepEngine> make_validation_engine(const PreparedSweep& sweep, const BarData& bars,
                                                    const std::string& device, int threads);

}  // namespace kbt
