// An action-driven simulation's file. HDF5 layout (docs/results.md "Simulate files"):
//   /metrics/<name>       float64 or int64 [trials]   the 21 metrics per trial
//   /timestamps           int64   [window bars]
//   /symbols              string  [symbols]
//   /per_bar/equity       float64 [trials][window bars]          (simulate.per_bar)
//   /per_bar/units        float64 [trials][window bars][symbols]
//   /per_bar/drawdown     float64 [trials][window bars]
//   /per_bar/open_pnl     float64 [trials][window bars]
//   /per_bar/reward       float64 [trials][window bars]
//   /config, /profile; root attributes kbt_version, job = "simulate", complete = 1 (last).

#include <hdf5.h>
#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/simulate_results.hpp>

#include "output/dataset_descriptions.hpp"
#include "output/results_io.hpp"

namespace kbt {

void write_simulate_hdf5(AtomicOutput& out, const BarData& bars, std::size_t window_begin,
                         const SimulateJobResult& result, const std::string& config_yaml, const RunProfile& profile) {
  const std::string& path = out.final_path();
  detail::ensure_parent_directory(path);
  detail::SilenceHdf5Errors quiet;
  const ActionSimulationResult& r = result.trials;
  const hsize_t nt = r.n_trials, nw = r.n_window_bars, ns = r.n_symbols;
  detail::H5Id file(
      detail::checked_create(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "file", path),
      H5Fclose);
  {
    detail::H5Id g = detail::make_group(file, "metrics", path);
    std::vector<double> column(r.n_trials);
    for (std::size_t m = 0; m < n_metrics; ++m) {
      for (std::size_t t = 0; t < r.n_trials; ++t) column[t] = r.metrics[t * n_metrics + m];
      detail::write_metric_column(g, m, column, path);
    }
  }
  const std::vector<std::int64_t> times(bars.timestamps.begin() + static_cast<std::ptrdiff_t>(window_begin),
                                        bars.timestamps.begin() + static_cast<std::ptrdiff_t>(window_begin + nw));
  detail::write_described(file, {nw},
                          {"timestamps", detail::ColumnType::int64, times.data(),
                           "times of the scoring window's bars, the per-bar datasets' bar axis", "ns since 1970-01-01 UTC"},
                          path);
  detail::write_string_dataset(file, "symbols", bars.symbols, path);
  if (!r.equity.empty()) {
    detail::make_group(file, "per_bar", path);
    detail::write_described(file, {nt, nw},
                            {"per_bar/equity", detail::ColumnType::float64, r.equity.data(),
                             "equity at the close (cash + units x close)", "currency"},
                            path);
    detail::write_described(file, {nt, nw, ns},
                            {"per_bar/units", detail::ColumnType::float64, r.units.data(),
                             "units held at the close, per symbol (negative: short)", "units"},
                            path);
    detail::write_described(file, {nt, nw},
                            {"per_bar/drawdown", detail::ColumnType::float64, r.drawdown.data(),
                             "(running peak - equity) / running peak; the peak starts at the initial capital",
                             "fraction"},
                            path);
    detail::write_described(file, {nt, nw},
                            {"per_bar/open_pnl", detail::ColumnType::float64, r.open_pnl.data(),
                             "unrealised PnL: the open trades' cash flows so far (fills with costs, borrow, "
                             "funding) + units x close, summed over symbols",
                             "currency"},
                            path);
    detail::write_described(file, {nt, nw},
                            {"per_bar/reward", detail::ColumnType::float64, r.reward.data(),
                             "the reward of simulate.reward (log_return, pnl or differential_sharpe)",
                             "as the reward"},
                            path);
  }
  detail::describe_results_datasets(file, path);  // the /metrics datasets
  detail::finish_job_file(file, "simulate", config_yaml, profile, path);
  detail::check_write(file.close(), "file", path);
}

}  // namespace kbt
