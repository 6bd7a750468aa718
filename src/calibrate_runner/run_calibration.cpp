#include "calibrate_runner/run_calibration.hpp"

#include <benchmark/benchmark.h>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/core/version.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <memory>
#include <sstream>

namespace kbt {
namespace {

// Collects the per-iteration time of every run; prints nothing.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  struct Result {
    std::string name;
    double seconds = 0;  // fastest iteration (counter "min_seconds")
    bool error = false;
    std::string message;
  };
  std::vector<Result> results;

  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      Result r;
      r.name = run.benchmark_name();
      r.error = run.error_occurred;
      r.message = run.error_message;
      const auto it = run.counters.find("min_seconds");
      r.seconds = it != run.counters.end() ? it->second.value
                                           : run.real_accumulated_time / static_cast<double>(std::max<benchmark::IterationCount>(run.iterations, 1));
      results.push_back(r);
    }
  }
};

// One point: the whole sweep of `combos` combos, each iteration timed by hand;
// the fastest iteration is the point's time (least disturbed by other load).
double measure(const std::string& space, const CalibrationWorkload& w, std::size_t combos, double min_time,
               std::string& error) {
  const std::vector<double> params = w.combos(combos);
  const std::string name = "calibrate/" + space + "/" + w.name + "/bars:" + std::to_string(w.bars.n_bars()) +
                           "/combos:" + std::to_string(combos);
  benchmark::ClearRegisteredBenchmarks();
  benchmark::RegisterBenchmark(name.c_str(), [&](benchmark::State& state) {
    double best = std::numeric_limits<double>::infinity();
    for (auto _ : state) {
      double s = 0;
      try {
        s = time_whole_sweep(space, w, params);
      } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        break;
      }
      best = std::min(best, s);
      state.SetIterationTime(s);
    }
    state.counters["min_seconds"] = best;
    state.counters["bar_combos_per_s"] =
        static_cast<double>(combos) * static_cast<double>(w.bars.n_bars()) / best;
  })->UseManualTime()->MinTime(min_time)->Unit(benchmark::kMillisecond);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  if (reporter.results.empty()) {
    error = "Google Benchmark ran nothing for " + name;
    return 0;
  }
  const auto& r = reporter.results.front();
  if (r.error) {
    error = name + ": " + r.message;
    return 0;
  }
  return r.seconds;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

Calibration run_calibration(const CalibrateOptions& options) {
  const CalibrationLadder ladder = calibration_ladder(options.mode);
  std::vector<std::string> spaces = options.spaces;
  if (spaces.empty())
    for (const auto& s : enabled_execution_spaces()) spaces.push_back(s.name);
  const std::vector<std::string> workloads =
      options.workloads.empty() ? calibration_workload_names() : options.workloads;

  std::vector<TimingPoint> points;
  for (std::size_t bars : ladder.bars) {
    for (const auto& wname : workloads) {
      const CalibrationWorkload w = make_calibration_workload(wname, bars);
      for (const auto& space : spaces) {
        double last_seconds = 0;
        std::size_t last_combos = 0, measured = 0;
        for (std::size_t combos : ladder.combos) {
          // Stop the ladder before a point predicted (linearly from the last
          // one) to exceed the budget; the first two points always run.
          if (measured >= 2 && last_seconds * static_cast<double>(combos) / static_cast<double>(last_combos) >
                                   ladder.point_budget_seconds)
            break;
          std::string error;
          const double s = measure(space, w, combos, ladder.min_time_seconds, error);
          if (!error.empty()) throw Error(ErrorCategory::internal, "calibration failed: " + error);
          points.push_back({space, wname, static_cast<double>(combos), static_cast<double>(bars), w.complexity, s});
          if (options.progress)
            std::fprintf(options.progress, "  %-7s %-13s bars %6zu  combos %8zu  %10.6f s  %.3g bar-combos/s\n",
                         space.c_str(), wname.c_str(), bars, combos, s,
                         static_cast<double>(combos) * static_cast<double>(bars) / s);
          last_seconds = s, last_combos = combos, ++measured;
        }
      }
    }
  }
  Calibration c = make_calibration(points, this_machine_identity());
  c.kbt_version = version_string;
  c.created_utc = utc_now();
  c.mode = options.mode;
  return c;
}

std::string format_calibration_summary(const Calibration& c) {
  std::ostringstream o;
  char buf[256];
  o << "machine: " << c.machine.host << ", " << c.machine.cpu << ", gpu " << c.machine.gpu << ", Kokkos "
    << c.machine.kokkos_version << "\n";
  o << "model: seconds = fixed + (base + per_instruction * instructions + per_window_read * window_reads) * bars * combos\n";
  for (const auto& m : c.models) {
    std::snprintf(buf, sizeof buf,
                  "  %-7s fixed %.3g s  base %.3g s  per_instruction %.3g s  per_window_read %.3g s  (per bar-combo; "
                  "%zu points, max relative residual %.2f)\n",
                  m.space.c_str(), m.fixed_seconds, m.per_bar_combo_base, m.per_instruction, m.per_window_read,
                  m.n_points, m.max_relative_residual);
    o << buf;
  }
  // Per workload: its complexity, and measured vs fitted throughput on each space
  // (measured: the largest grid of the longest history).
  std::vector<std::string> seen;
  for (const auto& p : c.points)
    if (std::find(seen.begin(), seen.end(), p.workload) == seen.end()) seen.push_back(p.workload);
  for (const auto& name : seen) {
    for (const auto& m : c.models) {
      const TimingPoint* big = nullptr;
      for (const auto& p : c.points)
        if (p.workload == name && p.space == m.space &&
            (!big || p.bars * p.combos > big->bars * big->combos))
          big = &p;
      if (!big) continue;
      std::snprintf(buf, sizeof buf, "  %-7s %-15s %-40s measured %.3g, model %.3g bar-combos/s\n", m.space.c_str(),
                    name.c_str(), to_string(big->complexity).c_str(), big->bars * big->combos / big->seconds,
                    1.0 / m.per_bar_combo_seconds(big->complexity));
      o << buf;
    }
  }
  if (c.break_even.empty()) {
    o << "break-even: none (only one execution space is calibrated)\n";
  } else {
    o << "break-even (combos from which `other` is faster than `host`):\n";
    for (const auto& b : c.break_even) {
      std::snprintf(buf, sizeof buf, "  %-7s vs %-7s %-15s bars %8g: %s\n", b.host.c_str(), b.other.c_str(),
                    b.workload.c_str(), b.bars,
                    b.combos ? std::to_string(static_cast<long long>(*b.combos)).c_str() : "never");
      o << buf;
    }
  }
  return o.str();
}

}  // namespace kbt
