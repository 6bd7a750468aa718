#pragma once
// The hoisting driver (docs/kernels.md, docs/sweep.md): every distinct (op, input, window) series
// a sweep needs is computed once, for every symbol and bar, into one device
// View [n_series][n_sym][n_bars] that the sweep kernels read. The View is
// allocated once, in the constructor; compute() may run again on new inputs of
// the same shape. One compute() is at most five kernel launches on one
// execution-space instance (sums sharing their start, other per-bar ops,
// rolling min/max, recursive ops), then one for the cross-section chains
// (cs_rank(roc(close, w)): detail/cross_section_fold.hpp).
//
//   kbt::kernels::FoldHoister<Kokkos::DefaultExecutionSpace, double> hoist(
//       {{FoldOp::rolling_mean, close, 20}, {FoldOp::rolling_std, close, 20}},
//       n_inputs, n_sym, n_bars);
//   hoist.compute(exec, inputs);             // fences exec before returning
//   auto sma20 = hoist.series_index({FoldOp::rolling_mean, close, 20});
//   // hoist.series()(sma20, symbol, bar)

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <kbt/core/error.hpp>
#include <kbt/core/detail/upload.hpp>
#include <kbt/kernels/fold_request.hpp>
#include <kbt/kernels/detail/cross_section_fold.hpp>
#include <kbt/kernels/detail/fold_task.hpp>
#include <kbt/kernels/detail/per_bar_fold.hpp>
#include <kbt/kernels/detail/recursive_fold.hpp>
#include <kbt/kernels/detail/rolling_extremum.hpp>
#include <kbt/kernels/detail/shared_start_sums.hpp>

namespace kbt::kernels {

// Which functor computes an op.
enum class FoldFamily { shared_start_sum, per_bar, extremum, recursive };

inline FoldFamily family_of(FoldOp op) {
  switch (op) {
    case FoldOp::rolling_sum:
    case FoldOp::rolling_mean: return FoldFamily::shared_start_sum;
    case FoldOp::rolling_min:
    case FoldOp::rolling_max: return FoldFamily::extremum;
    case FoldOp::ema:
    case FoldOp::rsi:
    case FoldOp::atr: return FoldFamily::recursive;
    default: return FoldFamily::per_bar;
  }
}

// Throws kbt::Error if `r` cannot be computed from n_inputs input series.
inline void validate_fold_request(const FoldRequest& r, int n_inputs) {
  const auto bad = [&](ErrorCategory category, const std::string& why) {
    throw Error(category, "fold request " + describe(r) + ": " + why);
  };
  if (r.window < min_window(r.op))
    bad(ErrorCategory::grid, "window must be >= " + std::to_string(min_window(r.op)));
  const auto check_input = [&](int index, const char* what) {
    if (index < 0 || index >= n_inputs)
      bad(ErrorCategory::internal, std::string(what) + " index out of range [0, " +
                                       std::to_string(n_inputs) + ")");
  };
  check_input(r.input, r.op == FoldOp::atr ? "close" : "input");
  if (r.op == FoldOp::atr) {
    check_input(r.high, "high");
    check_input(r.low, "low");
  } else if (r.high != -1 || r.low != -1) {
    bad(ErrorCategory::internal, "high/low are only read by atr; leave them -1");
  }
  if (r.cross_section.n < 0 || r.cross_section.n > CrossSectionChain::capacity)
    bad(ErrorCategory::internal, "cross-section chain of " + std::to_string(r.cross_section.n) + " ops");
  for (int k = 0; k < r.cross_section.n; ++k)
    if (op_info(r.cross_section.ops[k]).family != OpFamily::cross_sectional)
      bad(ErrorCategory::internal, "a cross-section chain holds cross-sectional ops only");
}

template <class ExecSpace, class Real = double>
class FoldHoister {
 public:
  using views = FoldViews<ExecSpace, Real>;
  using memory_space = typename views::memory_space;
  using input_view = typename views::input_view;
  using series_view = typename views::series_view;

  // Validates the requests (kbt::Error on a bad one), drops duplicates (series
  // index = order of first appearance) and allocates the output View.
  FoldHoister(const std::vector<FoldRequest>& requests, int n_inputs, int n_symbols, int n_bars)
      : FoldHoister(requests, n_inputs, n_symbols, n_bars, nullptr, 0) {}

  // The same, writing the series into caller-owned memory of `memory_space`:
  // `storage` holds room for `capacity` series of [n_symbols][n_bars] Reals
  // (kbt::Error(internal) if the distinct requests need more). The caller keeps
  // it alive; this is how a sweep reuses one allocation for every tile of
  // windows and lets the kernel read the series where they were computed.
  FoldHoister(const std::vector<FoldRequest>& requests, int n_inputs, int n_symbols, int n_bars, Real* storage,
              std::size_t capacity)
      : n_inputs_(n_inputs), n_sym_(n_symbols), n_bars_(n_bars) {
    if (n_inputs < 0 || n_symbols < 0 || n_bars < 0)
      throw Error(ErrorCategory::internal, "FoldHoister: negative extent");
    std::vector<FoldTask> sums, per_bar, extremum, recursive;
    std::vector<CrossSectionTask> cross_sections;
    for (const FoldRequest& r : requests) {
      validate_fold_request(r, n_inputs);
      if (find(r) >= 0) continue;
      const int index = static_cast<int>(distinct_.size());
      index_.emplace(r, index);
      distinct_.push_back(r);
      const FoldTask task{r.op, r.input, r.window, r.high, r.low, index};
      if (r.cross_section.n > 0) cross_sections.push_back(CrossSectionTask{index, r.cross_section});
      switch (family_of(r.op)) {
        case FoldFamily::shared_start_sum: sums.push_back(task); break;
        case FoldFamily::per_bar: per_bar.push_back(task); break;
        case FoldFamily::extremum: extremum.push_back(task); break;
        case FoldFamily::recursive: recursive.push_back(task); break;
      }
    }
    if (storage == nullptr) {
      series_ = series_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbt::hoisted_series"),
                            distinct_.size(), n_sym_, n_bars_);
    } else {
      if (capacity < distinct_.size())
        throw Error(ErrorCategory::internal, "FoldHoister: storage for " + std::to_string(capacity) +
                                                 " series, " + std::to_string(distinct_.size()) + " requested");
      series_ = Kokkos::View<Real***, Kokkos::LayoutRight, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          storage, distinct_.size(), n_sym_, n_bars_);
    }
    // Sums: one group per input, windows ascending (shared_start_sums.hpp).
    std::stable_sort(sums.begin(), sums.end(), [](const FoldTask& a, const FoldTask& b) {
      return a.input != b.input ? a.input < b.input : a.window < b.window;
    });
    std::vector<std::int64_t> sum_groups;
    for (std::size_t k = 0; k < sums.size(); ++k)
      if (k == 0 || sums[k].input != sums[k - 1].input) sum_groups.push_back(static_cast<std::int64_t>(k));
    if (!sums.empty()) sum_groups.push_back(static_cast<std::int64_t>(sums.size()));
    sums_ = kbt::detail::upload_1d<FoldTask, memory_space>(sums, "kbt::fold_tasks_sums");
    sum_groups_ = kbt::detail::upload_1d<std::int64_t, memory_space>(sum_groups, "kbt::fold_sum_groups");
    per_bar_ = kbt::detail::upload_1d<FoldTask, memory_space>(per_bar, "kbt::fold_tasks_per_bar");
    extremum_ = kbt::detail::upload_1d<FoldTask, memory_space>(extremum, "kbt::fold_tasks_extremum");
    recursive_ = kbt::detail::upload_1d<FoldTask, memory_space>(recursive, "kbt::fold_tasks_recursive");
    cross_sections_ =
        kbt::detail::upload_1d<CrossSectionTask, memory_space>(cross_sections, "kbt::fold_tasks_cross_sections");

    // Rolling min/max work items: n_sym x blocks(window) per task.
    std::vector<std::int64_t> offsets(extremum.size() + 1, 0);
    for (std::size_t k = 0; k < extremum.size(); ++k)
      offsets[k + 1] = offsets[k] + n_sym_ * extremum_blocks(n_bars_, extremum[k].window);
    extremum_items_ = offsets.back();
    extremum_offsets_ = kbt::detail::upload_1d<std::int64_t, memory_space>(offsets, "kbt::fold_extremum_offsets");
  }

  // Computes every hoisted series from `inputs` ([>= n_inputs][n_sym][n_bars],
  // LayoutRight, in ExecSpace's memory space) and fences `exec`.
  void compute(const ExecSpace& exec, const input_view& inputs) const {
    if (inputs.extent(0) < static_cast<std::size_t>(n_inputs_) ||
        inputs.extent(1) != static_cast<std::size_t>(n_sym_) ||
        inputs.extent(2) != static_cast<std::size_t>(n_bars_))
      throw Error(ErrorCategory::internal,
                  "FoldHoister::compute: inputs are [" + std::to_string(inputs.extent(0)) + "][" +
                      std::to_string(inputs.extent(1)) + "][" + std::to_string(inputs.extent(2)) +
                      "], expected [" + std::to_string(n_inputs_) + "][" + std::to_string(n_sym_) +
                      "][" + std::to_string(n_bars_) + "]");
    using policy = typename views::range_policy;
    if (sums_.extent(0) > 0 && n_sym_ > 0 && n_bars_ > 0) {
      SharedStartSumFold<ExecSpace, Real> f{inputs, series_, sums_, sum_groups_, n_sym_, n_bars_};
      Kokkos::parallel_for("kbt::fold::shared_start_sums", policy(exec, 0, f.size()), f);
    }
    if (per_bar_.extent(0) > 0 && n_sym_ > 0 && n_bars_ > 0) {
      PerBarFold<ExecSpace, Real> f{inputs, series_, per_bar_, n_sym_, n_bars_};
      Kokkos::parallel_for("kbt::fold::per_bar", policy(exec, 0, f.size()), f);
    }
    if (extremum_items_ > 0 && n_bars_ > 0) {
      RollingExtremumFold<ExecSpace, Real> f{inputs, series_, extremum_, extremum_offsets_, n_sym_,
                                             n_bars_};
      Kokkos::parallel_for("kbt::fold::rolling_extremum", policy(exec, 0, extremum_items_), f);
    }
    if (recursive_.extent(0) > 0 && n_sym_ > 0 && n_bars_ > 0) {
      RecursiveFold<ExecSpace, Real> f{inputs, series_, recursive_, n_sym_, n_bars_};
      Kokkos::parallel_for("kbt::fold::recursive", policy(exec, 0, f.size()), f);
    }
    // After the folds, on the same instance: the chains transform their finished series.
    if (cross_sections_.extent(0) > 0 && n_sym_ > 0 && n_bars_ > 0)
      CrossSectionFold<ExecSpace, Real>{series_, cross_sections_, n_sym_, n_bars_}.launch(exec);
    exec.fence();
  }
  void compute(const input_view& inputs) const { compute(ExecSpace(), inputs); }

  // [n_series][n_sym][n_bars]; valid after compute().
  const series_view& series() const { return series_; }

  // Distinct requests; request i fills series i.
  const std::vector<FoldRequest>& requests() const { return distinct_; }

  // Series index of `r`; kbt::Error(internal) when it was not requested.
  int series_index(const FoldRequest& r) const {
    const int i = find(r);
    if (i < 0) throw Error(ErrorCategory::internal, "fold series " + describe(r) + " was not hoisted");
    return i;
  }

  std::size_t n_series() const { return distinct_.size(); }
  std::size_t bytes() const { return series_.span() * sizeof(Real); }
  // Kernel launches one compute() makes (0..5).
  int launches() const {
    return (sums_.extent(0) > 0) + (per_bar_.extent(0) > 0) + (extremum_.extent(0) > 0) + (recursive_.extent(0) > 0) +
           (cross_sections_.extent(0) > 0);
  }

 private:
  int find(const FoldRequest& r) const {
    const auto it = index_.find(r);
    return it == index_.end() ? -1 : it->second;
  }

  int n_inputs_;
  int n_sym_;
  int n_bars_;
  std::vector<FoldRequest> distinct_;
  std::map<FoldRequest, int> index_;
  series_view series_;
  typename views::task_view sums_;
  typename views::offset_view sum_groups_;
  typename views::task_view per_bar_;
  typename views::task_view extremum_;
  typename views::task_view recursive_;
  typename views::offset_view extremum_offsets_;
  std::int64_t extremum_items_ = 0;
  Kokkos::View<const CrossSectionTask*, memory_space> cross_sections_;
};

}  // namespace kbt::kernels
