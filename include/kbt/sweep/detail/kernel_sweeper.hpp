#pragma once
// KernelSweeper: the KernelSweepRunner of one execution space and real type
// (kernel_sweep_runner.hpp). Set up once per run (program, data, fold inputs,
// the hoisted series' memory), it loads each call's combos tile by tile of
// hoisted windows, computes the windows they use that are not resident
// (hoisted_rows.hpp), launches the sweep functor in chunks that bound the
// per-thread scratch, and selects the top-K on the space. Results do not
// depend on the chunk size or the thread count: every combo is independent.

#include <kbt/config/run_config.hpp>
#include <kbt/core/detail/kokkos_compat.hpp>
#include <kbt/core/detail/upload.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/sweep/detail/functor_setup.hpp>
#include <kbt/sweep/detail/hoist_tiling.hpp>
#include <kbt/sweep/detail/hoisted_rows.hpp>
#include <kbt/sweep/detail/sweep_functor.hpp>
#include <kbt/sweep/detail/window_sweep.hpp>
#include <kbt/sweep/device_top_k.hpp>
#include <kbt/sweep/kernel_sweep_options.hpp>
#include <kbt/sweep/kernel_sweep_runner.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace kbt {

template <class ExecSpace, class Real>
class KernelSweeper final : public KernelSweepRunner {
 public:
  using memory_space = typename ExecSpace::memory_space;

  KernelSweeper(const ExecSpace& exec, const Program& program, const SweepPlan& plan, const BarData& bars,
                const ResolvedSimulation& sim, const KernelSweepOptions& options = {})
      : exec_(exec), options_(options), plan_(plan) {
    const std::size_t budget = options.memory_budget_bytes ? options.memory_budget_bytes
                                                           : default_memory_budget<ExecSpace>();
    scratch_budget_ = options.scratch_budget_bytes ? options.scratch_budget_bytes
                                                   : std::min<std::size_t>(budget / 4, std::size_t(512) << 20);
    std::size_t rows = options.hoist_rows;
    if (rows == 0) {
      const std::size_t per_row = std::max<std::size_t>(HoistedRows<ExecSpace, Real>::bytes_per_row(plan_), 1);
      rows = budget / 2 / per_row;
      if (rows < plan_.hoisted_regs.size()) {  // in MiB: what the config sets
        const auto mib = [](double bytes) {
          char text[32];
          std::snprintf(text, sizeof text, "%.2f MiB", bytes / 1048576.0);
          return std::string(text);
        };
        throw Error(ErrorCategory::limit,
                    "memory budget of " + mib(static_cast<double>(budget)) + ": its half for hoisted series holds " +
                        std::to_string(rows) + " series of " + std::to_string(plan_.n_symbols) + " symbols x " +
                        std::to_string(plan_.n_bars) + " bars, and this strategy needs " +
                        std::to_string(plan_.hoisted_regs.size()) + " at a time (a budget of at least " +
                        mib(2.0 * static_cast<double>(per_row * plan_.hoisted_regs.size())) +
                        "): raise sweep.memory_budget_mb");
      }
    }
    tiling_ = std::make_unique<HoistTiling>(plan_, rows);
    rows_ = std::min(rows, std::max<std::size_t>(plan_.n_hoisted_series(), 1));
    hoisted_ = HoistedRows<ExecSpace, Real>(exec_, plan_, rows_);
    functor_ = detail::make_sweep_functor<ExecSpace, Real>(program, plan_, bars, sim, options, shape_);
    functor_.eval.hoisted = hoisted_.rows();
  }

  // Simulates `combo_params` ([n][n_params]) and returns their metrics
  // [n][n_metrics] on the space (fenced). Combos are run tile by tile of
  // hoisted windows; the metrics come back in the given order.
  Kokkos::View<double**, memory_space> metrics_on_space(const std::vector<double>& combo_params,
                                                        KernelSweepOutput* phases = nullptr);

  // The same on several windows in one pass (detail/window_sweep.hpp), fp64
  // only: metrics [W * n][n_metrics] (window-major) and, with one window and
  // `period_last` (the last bar of each period), the period returns [P][n].
  struct WindowsOnSpace {
    Kokkos::View<double**, Kokkos::LayoutRight, memory_space> metrics, period_returns;
  };
  WindowsOnSpace windows_on_space(const std::vector<double>& combo_params, const std::vector<ScoringWindow>& windows,
                                  const std::vector<std::size_t>& period_last, KernelSweepOutput* phases = nullptr);

  KernelSweepOutput run(const std::vector<double>& combo_params, const KernelTopKRequest& top_k) override {
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    KernelSweepOutput out;
    const auto metrics = metrics_on_space(combo_params, &out);
    const std::size_t n_combos = metrics.extent(0);
    if (top_k.combo_ids.size() != n_combos)
      throw Error(ErrorCategory::internal, "top-K request: combo ids do not match the combos");
    auto t = Clock::now();
    const auto ids = detail::upload_1d<std::uint64_t, memory_space>(top_k.combo_ids, "kbt::combo_ids");
    const auto rows = select_top_k_on(exec_, metrics, ids, top_k.objective, top_k.k);  // fences
    out.seconds_topk = since(t);
    t = Clock::now();
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), metrics);
    out.metrics.resize(n_combos * n_metrics);
    for (std::size_t c = 0; c < n_combos; ++c)
      for (std::size_t m = 0; m < n_metrics; ++m) out.metrics[c * n_metrics + m] = host(c, m);
    auto host_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
    for (std::size_t j = 0; j < host_rows.extent(0); ++j) out.top_k.push_back(static_cast<std::size_t>(host_rows(j)));
    out.seconds_download = since(t);
    out.kernel_bytes = functor_.bytes() + hoisted_.bytes() - functor_.eval.hoisted.span() * sizeof(Real);
    return out;
  }

  KernelSweepOutput run_windows(const std::vector<double>& combo_params, const std::vector<ScoringWindow>& windows,
                                const std::vector<std::size_t>& period_last, const KernelTopKRequest& top_k) override {
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    KernelSweepOutput out;
    const WindowsOnSpace on = windows_on_space(combo_params, windows, period_last, &out);
    const std::size_t n = windows.empty() ? 0 : on.metrics.extent(0) / windows.size();
    if (top_k.combo_ids.size() != n) throw Error(ErrorCategory::internal, "top-K request: combo ids do not match the combos");
    auto t = Clock::now();
    const auto ids = detail::upload_1d<std::uint64_t, memory_space>(top_k.combo_ids, "kbt::combo_ids");
    for (std::size_t w = 0; w < windows.size(); ++w) {
      const auto window = Kokkos::subview(on.metrics, std::make_pair(w * n, (w + 1) * n), Kokkos::ALL());
      const auto rows = select_top_k_on(exec_, window, ids, top_k.objective, top_k.k);  // fences
      auto host_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
      out.window_top_k.emplace_back();
      for (std::size_t j = 0; j < host_rows.extent(0); ++j)
        out.window_top_k.back().push_back(static_cast<std::size_t>(host_rows(j)));
    }
    out.seconds_topk = since(t);
    t = Clock::now();
    const auto copy_out = [](const auto& view, std::vector<double>& to) {
      auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
      to.assign(host.data(), host.data() + host.span());  // LayoutRight: row-major
    };
    copy_out(on.metrics, out.metrics);
    if (on.period_returns.data() != nullptr) copy_out(on.period_returns, out.period_returns);
    out.seconds_download = since(t);
    out.kernel_bytes = functor_.bytes() + hoisted_.bytes() - functor_.eval.hoisted.span() * sizeof(Real) +
                       (on.metrics.span() + on.period_returns.span()) * sizeof(double);
    return out;
  }

  // The series of register `reg` for one combo, [n_symbols][n_bars] on the
  // space, by the sweep kernel's in-thread evaluator (no simulation).
  Kokkos::View<Real**, memory_space> evaluate_on_space(const std::vector<double>& params, int reg);

  void set_scoring_window(const ScoringWindow& window) override {
    check_scoring_windows({window}, plan_.n_bars);
    functor_.portfolio.rules.window_begin = static_cast<int>(window.begin);
    functor_.portfolio.rules.window_end = static_cast<int>(window.end);
  }

  void set_metric_groups(unsigned groups) override {
    functor_.metric_groups = compiled_set_for(metrics_of_groups(groups));
  }

  std::size_t hoist_rows() const override { return rows_; }
  std::size_t hoist_tiles() const override { return tiling_->n_tiles(); }
  bool hoist_recomputes_along_rows() const override { return tiling_->recomputes_along_rows(); }

 private:
  std::size_t n_combos_of(const std::vector<double>& combo_params) const {
    return plan_.n_params == 0 ? (combo_params.empty() ? 1 : combo_params.size()) : combo_params.size() / plan_.n_params;
  }

  // Loads `combo_params` ([n][n_params]) tile by tile of hoisted windows and
  // calls launch(rows, loaded, chunk, one_tile) for each tile's group: the
  // call's rows of the loaded combos, in load order. Returns n.
  template <class Launch>
  std::size_t for_each_tile(const std::vector<double>& combo_params, KernelSweepOutput* phases, Launch&& launch) {
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    const std::size_t n_params = plan_.n_params, n_h = plan_.hoisted_regs.size();
    const std::size_t n = n_combos_of(combo_params);
    // Each combo's tile and window indices; combos grouped by tile, in order.
    std::vector<std::size_t> tile(n), window_index(n * n_h);
    for (std::size_t c = 0; c < n; ++c)
      tile[c] = n_h == 0 ? 0 : tiling_->tile_of(combo_params.data() + c * n_params, window_index.data() + c * n_h);
    std::vector<std::size_t> order(n);
    for (std::size_t c = 0; c < n; ++c) order[c] = c;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return tile[x] < tile[y]; });
    const bool one_tile = n == 0 || tile[order.front()] == tile[order.back()];
    for (std::size_t g0 = 0; g0 < n;) {
      std::size_t g1 = g0;
      while (g1 < n && tile[order[g1]] == tile[order[g0]]) ++g1;
      auto t = Clock::now();
      hoist(tile[order[g0]], window_index.data(), order.data() + g0, g1 - g0, phases);
      if (phases) phases->seconds_hoist += since(t);
      t = Clock::now();
      std::vector<double> params;
      std::vector<int> rows;
      params.reserve((g1 - g0) * n_params);
      rows.reserve((g1 - g0) * n_h);
      for (std::size_t j = g0; j < g1; ++j) {
        const std::size_t c = order[j];
        params.insert(params.end(), combo_params.begin() + static_cast<long>(c * n_params),
                      combo_params.begin() + static_cast<long>((c + 1) * n_params));
        append_rows(window_index.data() + c * n_h, rows);
      }
      std::size_t loaded = 0, chunk = 0;
      detail::load_combos(functor_, shape_, n_params, n_h, params, rows, scratch_budget_, options_, loaded, chunk);
      exec_.fence();
      if (phases) phases->seconds_upload += since(t);
      t = Clock::now();
      launch(std::vector<std::size_t>(order.begin() + static_cast<long>(g0), order.begin() + static_cast<long>(g1)),
             loaded, chunk, one_tile);
      if (phases) phases->seconds_kernel += since(t);
      g0 = g1;
    }
    return n;
  }

  // Makes resident (fenced), in tile `t`, the windows that `n` combos use: combo
  // combos[j]'s window indices are window_index[combos[j] * n_h + h]. Only
  // series not resident yet are computed; a new tile starts from none.
  void hoist(std::size_t t, const std::size_t* window_index, const std::size_t* combos, std::size_t n,
             KernelSweepOutput* phases) {
    const std::size_t n_h = plan_.hoisted_regs.size();
    if (!computed_ || current_tile_ != t) {
      hoisted_.start(tiling_->tile(t));
      current_tile_ = t;
      computed_ = true;
      if (phases) ++phases->hoist_tiles;
    }
    std::vector<std::vector<std::size_t>> needed(n_h);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t h = 0; h < n_h; ++h) needed[h].push_back(window_index[combos[j] * n_h + h]);
    for (auto& windows : needed) {
      std::sort(windows.begin(), windows.end());
      windows.erase(std::unique(windows.begin(), windows.end()), windows.end());
    }
    const std::size_t series = hoisted_.compute(needed);
    if (phases) phases->hoisted_series += series;
  }
  // A combo's rows of the resident tile, from its window indices (one per hoisted register).
  void append_rows(const std::size_t* window_index, std::vector<int>& rows) const {
    for (std::size_t h = 0; h < plan_.hoisted_regs.size(); ++h) rows.push_back(hoisted_.row(h, window_index[h]));
  }

  ExecSpace exec_;
  KernelSweepOptions options_;
  const SweepPlan& plan_;  // the caller keeps the plan alive while the sweeper runs
  std::size_t scratch_budget_ = 0, rows_ = 0;
  std::unique_ptr<HoistTiling> tiling_;
  HoistedRows<ExecSpace, Real> hoisted_;
  bool computed_ = false;
  std::size_t current_tile_ = 0;
  detail::ScratchShape shape_;
  SweepFunctor<ExecSpace, Real> functor_;
};

// The members that launch kernels are defined outside the class, so that
// they are not inline: `extern template class KernelSweeper<...>`
// (sweep_kernel.hpp) then keeps every other translation unit from compiling
// its own copy of the kernels, which the linker could keep instead of the -O3
// instance's (docs/kernels.md "The kernels are compiled once, at -O3").

template <class ExecSpace, class Real>
Kokkos::View<double**, typename ExecSpace::memory_space> KernelSweeper<ExecSpace, Real>::metrics_on_space(
    const std::vector<double>& combo_params, KernelSweepOutput* phases) {
  Kokkos::View<double**, memory_space> all;
  const std::size_t n = for_each_tile(combo_params, phases, [&](const std::vector<std::size_t>& rows, std::size_t loaded,
                                                                std::size_t chunk, bool one_tile) {
    detail::launch_sweep(exec_, functor_, loaded, chunk);  // fences
    if (one_tile) {
      all = functor_.metrics;
      return;
    }
    if (all.extent(0) == 0) all = Kokkos::View<double**, memory_space>("kbt::metrics", n_combos_of(combo_params), n_metrics);
    const std::vector<std::int64_t> index(rows.begin(), rows.end());
    const auto dev_index = detail::upload_1d<std::int64_t, memory_space>(index, "kbt::metric_rows");
    detail::ScatterMetricRows<ExecSpace> scatter{functor_.metrics, all, dev_index};
    Kokkos::parallel_for("kbt::sweep::scatter_metrics",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                             exec_, 0, static_cast<std::int64_t>(rows.size())),
                         scatter);
    exec_.fence();
  });
  if (n == 0) all = Kokkos::View<double**, memory_space>("kbt::metrics", 0, n_metrics);
  return all;
}

template <class ExecSpace, class Real>
typename KernelSweeper<ExecSpace, Real>::WindowsOnSpace KernelSweeper<ExecSpace, Real>::windows_on_space(
    const std::vector<double>& combo_params, const std::vector<ScoringWindow>& windows,
    const std::vector<std::size_t>& period_last, KernelSweepOutput* phases) {
  if constexpr (!std::is_same<Real, double>::value) {
    throw Error(ErrorCategory::internal, "sweep kernel: several windows in one pass run in fp64");
  } else {
    check_scoring_windows(windows, plan_.n_bars);
    if (windows.empty() || (!period_last.empty() && windows.size() != 1))
      throw Error(ErrorCategory::internal, "sweep kernel: period returns need exactly one window");
    const std::size_t n = n_combos_of(combo_params);
    detail::WindowTargets<memory_space> to;
    std::vector<int> bounds;
    for (const ScoringWindow& w : windows) bounds.push_back(int(w.begin)), bounds.push_back(int(w.end));
    Kokkos::View<int**, Kokkos::LayoutRight, memory_space> dev_windows("kbt::windows", windows.size(), 2);
    Kokkos::deep_copy(dev_windows, Kokkos::View<const int**, Kokkos::LayoutRight, Kokkos::HostSpace>(
                                       bounds.data(), windows.size(), 2));
    to.windows = dev_windows;
    to.n_rows = static_cast<long>(n);
    to.metrics = decltype(to.metrics)("kbt::window_metrics", windows.size() * n, n_metrics);
    if (!period_last.empty()) {
      to.period_last = detail::upload_1d<int, memory_space>(std::vector<int>(period_last.begin(), period_last.end()),
                                                            "kbt::period_last");
      to.period_returns = decltype(to.period_returns)("kbt::period_returns", period_last.size(), n);
    }
    for_each_tile(combo_params, phases, [&](const std::vector<std::size_t>& rows, std::size_t loaded,
                                            std::size_t chunk, bool) {
      to.out_row = detail::upload_1d<long, memory_space>(std::vector<long>(rows.begin(), rows.end()), "kbt::out_row");
      detail::launch_window_sweep(exec_, functor_, loaded, chunk, to);  // fences
    });
    return WindowsOnSpace{to.metrics, to.period_returns};
  }
}

template <class ExecSpace, class Real>
Kokkos::View<Real**, typename ExecSpace::memory_space> KernelSweeper<ExecSpace, Real>::evaluate_on_space(
    const std::vector<double>& params, int reg) {
  if (options_.fuse_compare_selects)
    throw Error(ErrorCategory::internal, "evaluating a register needs a sweeper made without fused compare-selects");
  const std::size_t n_h = plan_.hoisted_regs.size();
  std::vector<std::size_t> window_index(n_h);
  const std::size_t only = 0;
  hoist(n_h == 0 ? 0 : tiling_->tile_of(params.data(), window_index.data()), window_index.data(), &only, 1, nullptr);
  std::vector<int> rows;
  append_rows(window_index.data(), rows);
  KernelSweepOptions one = options_;
  one.chunk_combos = 1;
  std::size_t loaded = 0, chunk = 0;
  detail::load_combos(functor_, shape_, plan_.n_params, n_h, params, rows, scratch_budget_, one, loaded, chunk);
  auto f = functor_;
  f.eval.first = 0;
  f.emit_register = reg;
  f.emitted = Kokkos::View<Real**, memory_space>("kbt::emitted", plan_.n_symbols, plan_.n_bars);
  Kokkos::parallel_for("kbt::evaluate", Kokkos::RangePolicy<ExecSpace>(exec_, 0, 1), f);
  exec_.fence();
  return f.emitted;
}

}  // namespace kbt
