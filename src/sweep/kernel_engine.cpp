// The sweep kernel as a SweepEngine: plan and runner made once, each run()
// moves only its combos; one kernel pass for all of its scoring windows.

#include <kbt/sweep/sweep_engine.hpp>

#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/sweep_kernel.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <chrono>
#include <memory>

namespace kbt {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class KernelEngine final : public SweepEngine {
 public:
  KernelEngine(const PreparedSweep& sweep, const BarData& bars, const std::string& device, bool fp32,
               const KernelSweepOptions& options, KernelEngineFacts* facts)
      : sweep_(sweep), bars_(bars), device_(device) {
    auto t = std::chrono::steady_clock::now();
    plan_ = make_sweep_plan(sweep.program, bars);
    KernelEngineFacts f;
    f.seconds_plan = seconds_since(t);
    f.hoisted_series = plan_.n_hoisted_series();
    f.materialized_series = plan_.materialized.size();
    f.series_bytes = plan_.series_bytes(fp32 ? 4 : 8);
    t = std::chrono::steady_clock::now();
    if (sweep.n_combos() > 0) {
      KernelSweepOptions with_set = options;
      with_set.metric_groups = sweep.metric_groups;
      runner_ = make_kernel_sweep_runner(device, fp32, sweep.program, plan_, bars, sweep.sim, with_set);
      f.hoist_rows_resident = runner_->hoist_rows();
      f.hoist_tiles = runner_->hoist_tiles();
      f.hoist_recomputes_along_rows = runner_->hoist_recomputes_along_rows();
    }
    f.seconds_setup = seconds_since(t);
    if (facts) *facts = f;
  }

  const std::string& device() const override { return device_; }
  std::string top_k_selected_on() const override { return device_; }

  EngineOutput run(std::size_t begin, std::size_t end, const std::vector<ScoringWindow>& windows,
                   const EngineTopK& top_k) override {
    if (begin > end || end > sweep_.n_combos())
      throw Error(ErrorCategory::internal, "kernel engine: combo range out of bounds");
    check_scoring_windows(windows, bars_.n_bars());
    EngineOutput out;
    const std::size_t count = end - begin;
    const std::vector<ScoringWindow> all = windows.empty() ? std::vector<ScoringWindow>{sweep_.sim.window} : windows;
    if (count == 0) {
      out.top_k.resize(all.size());
      return out;
    }
    const std::vector<double> params = sweep_.combos.params(begin, count);
    KernelTopKRequest request;
    request.objective = top_k.objective;
    request.k = top_k.k;
    request.combo_ids = sweep_.combos.ids(begin, count);
    // One window: the one-window kernel (its state in registers); several:
    // one pass over the bars for all of them (detail/window_sweep.hpp).
    KernelSweepOutput k;
    if (all.size() == 1) {
      runner_->set_scoring_window(all.front());
      k = runner_->run(params, request);
      runner_->set_scoring_window(sweep_.sim.window);
      k.window_top_k.push_back(std::move(k.top_k));
    } else {
      k = runner_->run_windows(params, all, {}, request);
    }
    if (k.metrics.size() != all.size() * count * n_metrics || k.window_top_k.size() != all.size())
      throw Error(ErrorCategory::internal, "sweep kernel returned the wrong number of combos");
    out.metrics = std::move(k.metrics);
    for (auto& rows : k.window_top_k) out.top_k.push_back(top_k.k ? std::move(rows) : std::vector<std::size_t>{});
    out.phases.upload = k.seconds_upload;
    out.phases.fold_kernels = k.seconds_hoist;
    out.phases.kernel = k.seconds_kernel;
    out.phases.top_k = k.seconds_topk;
    out.phases.download = k.seconds_download;
    out.phases.hoist_tiles_computed = k.hoist_tiles;
    out.phases.hoisted_series_computed = k.hoisted_series;
    out.phases.kernel_bytes = k.kernel_bytes;
    out.phases.passes = 1;
    return out;
  }

  CandidateRuns run_candidates(const std::vector<double>& params, const ScoringWindow& window,
                               const std::vector<std::size_t>& period_last) override {
    CandidateRuns out;
    const std::size_t k = sweep_.n_params() == 0 ? 1 : params.size() / sweep_.n_params();
    if (k == 0) return out;
    KernelTopKRequest none;
    none.combo_ids.resize(k);
    runner_->set_metric_groups(metric_group::all);
    KernelSweepOutput r = runner_->run_windows(params, {window}, period_last, none);
    runner_->set_metric_groups(sweep_.metric_groups);
    out.metrics = std::move(r.metrics);
    out.period_returns = std::move(r.period_returns);
    return out;
  }

  std::vector<double> all_metrics(const std::vector<std::uint64_t>& rows,
                                  const std::optional<ScoringWindow>& window) override {
    if (rows.empty()) return {};
    if (window) check_scoring_windows({*window}, bars_.n_bars());
    runner_->set_scoring_window(window ? *window : sweep_.sim.window);
    runner_->set_metric_groups(metric_group::all);
    KernelTopKRequest none;
    none.combo_ids.resize(rows.size());
    KernelSweepOutput k = runner_->run(sweep_.combos.subset(rows).params(0, rows.size()), none);
    runner_->set_metric_groups(sweep_.metric_groups);
    runner_->set_scoring_window(sweep_.sim.window);
    return std::move(k.metrics);
  }

 private:
  const PreparedSweep& sweep_;
  const BarData& bars_;
  std::string device_;
  SweepPlan plan_;  // read by the runner: declared before it, destroyed after it
  std::unique_ptr<KernelSweepRunner> runner_;
};

}  // namespace

std::unique_ptr<SweepEngine> make_kernel_engine(const PreparedSweep& sweep, const BarData& bars,
                                                const std::string& device, bool fp32,
                                                const KernelSweepOptions& options, KernelEngineFacts* facts) {
  return std::make_unique<KernelEngine>(sweep, bars, device, fp32, options, facts);
}

std::unique_ptr<SweepEngine> make_validation_engine(const PreparedSweep& sweep, const BarData& bars,
                                                    const std::string& device, int threads) {
  return device == "reference" ? make_reference_engine(sweep, bars, threads)
                               : make_kernel_engine(sweep, bars, device, false);
}

}  // namespace kbt
