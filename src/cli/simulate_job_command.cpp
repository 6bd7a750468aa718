// `kbt run` of an action-driven simulation: simulate, write the file, print
// the metrics of the first trials and their spread over all trials.

#include "cli/simulate_job_command.hpp"

#include <kbt/core/atomic_output.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/run_lock.hpp>
#include <kbt/output/simulate_results.hpp>
#include <kbt/simulate/simulate_job.hpp>
#include <kbt/sweep/run_sweep.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "output/number_format.hpp"

namespace kbt::cli {
namespace {

constexpr Metric kShown[] = {Metric::total_return, Metric::sharpe, Metric::max_drawdown, Metric::n_trades};

std::string trial_table(const ActionSimulationResult& r, std::size_t show) {
  using detail::format_table_number;
  std::vector<std::vector<std::string>> rows = {{"trial"}};
  for (const Metric m : kShown) rows[0].push_back(metric_names()[int(m)]);
  for (std::size_t t = 0; t < std::min(show, r.n_trials); ++t) {
    rows.push_back({std::to_string(t)});
    for (const Metric m : kShown) rows.back().push_back(format_table_number(r.metrics[t * n_metrics + int(m)]));
  }
  // The spread over every trial (NaN metrics left out).
  for (const char* which : {"min", "median", "max"}) {
    rows.push_back({which});
    for (const Metric m : kShown) {
      std::vector<double> v;
      for (std::size_t t = 0; t < r.n_trials; ++t)
        if (!std::isnan(r.metrics[t * n_metrics + int(m)])) v.push_back(r.metrics[t * n_metrics + int(m)]);
      std::sort(v.begin(), v.end());
      const double x = v.empty() ? NAN : which[1] == 'i' ? v.front() : which[1] == 'a' ? v.back() : v[v.size() / 2];
      rows.back().push_back(format_table_number(x));
    }
  }
  return detail::format_table(rows);
}

}  // namespace

void run_simulate_config(const RunConfig& config, const JobRunOptions& o) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const BarData bars = load_run_data(config);
  const double load_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const std::string out = o.out.empty() ? config.output.path : o.out;
  const RunLock lock(out);  // one job per output at a time (docs/results.md "Faults")
  remove_orphaned_temporaries(out);

  const SimulateJobResult r = run_simulate_job(config, bars, o.device);
  const std::size_t window_begin = bars.n_bars() - r.trials.n_window_bars;
  RunProfile profile = job_profile("simulate", r.device, config, load_seconds);
  profile.set("seconds_actions", r.seconds_actions);
  profile.set("seconds_simulate", r.seconds_simulate);
  profile.set("trials", static_cast<double>(r.trials.n_trials));
  profile.set("trial_bars_per_second", static_cast<double>(r.trials.n_trials * r.trials.n_window_bars) /
                                           std::max(r.seconds_simulate, 1e-9));
  const auto t_write = Clock::now();
  {
    AtomicOutput file(out);
    write_simulate_hdf5(file, bars, window_begin, r, config.source_yaml, profile);
    file.commit();
  }
  const double write_seconds = std::chrono::duration<double>(Clock::now() - t_write).count();

  std::printf("simulate: %zu trial%s x %zu symbol%s x %zu window bars, device %s\n", r.trials.n_trials,
              r.trials.n_trials == 1 ? "" : "s", bars.n_symbols(), bars.n_symbols() == 1 ? "" : "s",
              r.trials.n_window_bars, r.device.c_str());
  std::fputs(trial_table(r.trials, o.show).c_str(), stdout);
  std::printf("results: %s\n", out.c_str());
  if (o.profile) print_job_profile(profile, write_seconds);
}

}  // namespace kbt::cli
