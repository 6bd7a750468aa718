// The calibration measurements of `kbt calibrate` as a plain Google Benchmark
// program (all --benchmark_* flags apply): whole sweeps (plan, upload, kernel,
// download) per enabled space x workload x bars x combos, with the ladder of
// $KBT_CALIBRATE_MODE (quick by default, docs/calibration.md). Points whose
// work (bars x combos) exceeds $KBT_CALIBRATE_MAX_WORK (default 2e7 bar-combos)
// are not registered. After the runs, the cost model is fitted to what ran
// and printed, as `kbt calibrate` would (nothing is written).

#include <benchmark/benchmark.h>
#include <kbt/calibration/calibration.hpp>
#include <kbt/calibration/calibration_workloads.hpp>
#include <kbt/core/execution_spaces.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>

#include "calibrate_runner/run_calibration.hpp"

namespace {

struct PointInfo {
  std::string space, workload;
  double combos, bars;
  kbt::Complexity complexity;
};

std::map<std::string, std::unique_ptr<kbt::CalibrationWorkload>> g_workloads;
std::map<std::string, PointInfo> g_points;  // by benchmark name

kbt::CalibrationWorkload& workload(const std::string& name, std::size_t bars) {
  auto& w = g_workloads[name + "/" + std::to_string(bars)];
  if (!w) w = std::make_unique<kbt::CalibrationWorkload>(kbt::make_calibration_workload(name, bars));
  return *w;
}

void BM_WholeSweep(benchmark::State& state, std::string space, std::string name, std::size_t bars, std::size_t combos) {
  const kbt::CalibrationWorkload& w = workload(name, bars);
  const std::vector<double> params = w.combos(combos);
  for (auto _ : state) state.SetIterationTime(kbt::time_whole_sweep(space, w, params));
  state.counters["bar_combos_per_s"] =
      benchmark::Counter(static_cast<double>(combos) * static_cast<double>(bars), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["instructions"] = w.complexity.instructions;
  state.counters["window_reads"] = w.complexity.window_reads;
}

// The console output, and every run kept for the fit.
class TeeReporter : public benchmark::ConsoleReporter {
 public:
  TeeReporter() : benchmark::ConsoleReporter(benchmark::ConsoleReporter::OO_Tabular) {}
  std::vector<kbt::TimingPoint> points;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
      const auto it = g_points.find(r.run_name.function_name);  // the registered name
      if (it == g_points.end()) continue;
      const PointInfo& p = it->second;
      points.push_back({p.space, p.workload, p.combos, p.bars, p.complexity,
                        r.real_accumulated_time / static_cast<double>(r.iterations)});
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("kokkos_version", kbt::kokkos_version_string());
  const char* mode_env = std::getenv("KBT_CALIBRATE_MODE");
  const char* work_env = std::getenv("KBT_CALIBRATE_MAX_WORK");
  const kbt::CalibrationLadder ladder = kbt::calibration_ladder(mode_env ? mode_env : "quick");
  const double max_work = work_env ? std::atof(work_env) : 2e7;
  for (const auto& space : kbt::enabled_execution_spaces())
    for (const auto& name : kbt::calibration_workload_names())
      for (std::size_t bars : ladder.bars)
        for (std::size_t combos : ladder.combos) {
          if (static_cast<double>(bars) * static_cast<double>(combos) > max_work) continue;
          const std::string bench = "calibrate/" + space.name + "/" + name + "/bars:" + std::to_string(bars) +
                                    "/combos:" + std::to_string(combos);
          g_points[bench] = {space.name, name, static_cast<double>(combos), static_cast<double>(bars),
                             workload(name, bars).complexity};
          benchmark::RegisterBenchmark(bench.c_str(), BM_WholeSweep, space.name, name, bars, combos)
              ->UseManualTime()->MinTime(ladder.min_time_seconds)->Unit(benchmark::kMillisecond);
        }
  TeeReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  try {
    const kbt::Calibration c = kbt::make_calibration(reporter.points, kbt::this_machine_identity());
    std::cout << kbt::format_calibration_summary(c);
  } catch (const std::exception& e) {
    std::cerr << "no fit: " << e.what() << "\n";
  }
  g_workloads.clear();
  return 0;
}
