#pragma once
// The hoisted series of a sweep, computed by the fold kernels on the sweep's own
// execution space, straight into the View the sweep kernel reads (docs/kernels.md, docs/sweep.md).
//
// Set up once per run: the fold stages' inputs are uploaded and the row View
// [max_rows][n_symbols * n_bars] is allocated. start(tile) begins a tile of
// windows (hoist_tiling.hpp) in that memory, and compute(needed) fills rows with
// the windows a run's combos use that are not resident yet: nothing is
// allocated per combo, per bar or per chunk.
//
// Where a stage's series have the kernel's layout already (a host memory
// space, fp64, the base timeframe), the fold kernels write into the row View
// itself; otherwise (a GPU's LayoutLeft, fp32, a higher timeframe's shorter
// rows) they write fp64 series into a staging View that one copy kernel moves
// into the rows. The series never pass through host memory.

#include <kbt/core/error.hpp>
#include <kbt/kernels/fold_hoister.hpp>
#include <kbt/sweep/detail/hoist_tiling.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace kbt {
namespace detail {

// rows(offset + k, s * n_bars + b) = Real(series(k, s, b)).
template <class ExecSpace, class Real>
struct CopyFoldRows {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<const double***, Kokkos::LayoutRight, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> series;
  Kokkos::View<Real**, memory_space> rows;
  std::int64_t offset = 0, n_sym = 0, n_bars = 0;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const std::int64_t b = i % n_bars;
    const std::int64_t s = (i / n_bars) % n_sym;
    const std::int64_t k = i / (n_bars * n_sym);
    rows(offset + k, s * n_bars + b) = static_cast<Real>(series(k, s, b));
  }
};

}  // namespace detail

template <class ExecSpace, class Real>
class HoistedRows {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using rows_view = Kokkos::View<Real**, memory_space>;

  // Whether fold kernels can write a base-timeframe stage into the rows directly.
  static constexpr bool writes_rows_in_place =
      std::is_same<Real, double>::value && std::is_same<typename rows_view::array_layout, Kokkos::LayoutRight>::value;

  // Device bytes per row of a tile: the row, and its staging when it has one.
  static std::size_t bytes_per_row(const SweepPlan& plan) {
    const std::size_t width = plan.n_symbols * plan.n_bars;
    bool staged = !writes_rows_in_place;
    for (const auto& st : plan.fold_stages) staged = staged || st.n_bars != plan.n_bars;
    return width * (sizeof(Real) + (staged ? sizeof(double) : 0));
  }

  HoistedRows() = default;

  // Uploads the stages' inputs and allocates room for `max_rows` rows.
  HoistedRows(const ExecSpace& exec, const SweepPlan& plan, std::size_t max_rows) : exec_(exec), plan_(&plan) {
    const std::size_t rows = std::max<std::size_t>(std::min(max_rows, plan.n_hoisted_series()), 1);
    rows_ = rows_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::hoisted")), rows,
                      std::max<std::size_t>(plan.n_symbols * plan.n_bars, 1));
    for (const auto& st : plan.fold_stages) {
      typename kernels::FoldViews<ExecSpace, double>::series_view in(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::fold_inputs")), st.inputs.size(),
          plan.n_symbols, st.n_bars);
      auto host = Kokkos::create_mirror_view(in);
      for (std::size_t k = 0; k < st.inputs.size(); ++k)
        for (std::size_t j = 0; j < plan.n_symbols * st.n_bars; ++j) host.data()[k * plan.n_symbols * st.n_bars + j] = st.inputs[k][j];
      Kokkos::deep_copy(in, host);
      inputs_.push_back(in);
    }
  }

  // Starts tile `tile`: none of its series is resident; its rows reuse the
  // memory of the previous tile's.
  void start(const HoistTile& tile) {
    if (tile.rows() > rows_.extent(0))
      throw Error(ErrorCategory::internal, "hoisted tile of " + std::to_string(tile.rows()) + " rows, room for " +
                                               std::to_string(rows_.extent(0)));
    tile_ = tile;
    row_.assign(plan_->hoisted_regs.size(), {});
    for (std::size_t h = 0; h < row_.size(); ++h) row_[h].assign(tile.end[h] - tile.begin[h], -1);
    resident_.assign(plan_->fold_stages.size(), {});
    used_ = 0;
  }

  // Starts `tile` and computes all of its windows (fenced).
  std::size_t compute_all(const HoistTile& tile) {
    start(tile);
    std::vector<std::vector<std::size_t>> every(tile.begin.size());
    for (std::size_t h = 0; h < every.size(); ++h)
      for (std::size_t i = tile.begin[h]; i < tile.end[h]; ++i) every[h].push_back(i);
    return compute(every);
  }

  // Computes the series of the started tile's windows `needed[h]` (indices
  // into SweepPlan::hoisted_windows[h], within the tile) that are not resident
  // yet, and fences: a run hoists only the windows its combos use (docs/sweep.md
  // "Only the windows a run uses"). Returns how many series it computed.
  std::size_t compute(const std::vector<std::vector<std::size_t>>& needed) {
    const SweepPlan& plan = *plan_;
    const std::size_t n_h = plan.hoisted_regs.size();
    std::size_t computed = 0;
    for (std::size_t s = 0; s < plan.fold_stages.size(); ++s) {
      // The stage's missing requests (one a register shares with another is
      // one series: FoldHoister keeps distinct requests).
      std::vector<kernels::FoldRequest> requests;
      const auto row_of = [&](const kernels::FoldRequest& r) {
        const auto it = resident_[s].find(r);
        return it == resident_[s].end() ? -1 : it->second;
      };
      for (std::size_t h = 0; h < n_h; ++h) {
        if (plan.hoisted_stage[h] != static_cast<std::int32_t>(s)) continue;
        for (std::size_t i : needed[h]) {
          const auto& r = plan.hoisted_requests[h][i];
          if (row_of(r) < 0) requests.push_back(r);
        }
      }
      if (!requests.empty()) computed += compute_stage(s, requests);
      for (std::size_t h = 0; h < n_h; ++h)
        if (plan.hoisted_stage[h] == static_cast<std::int32_t>(s))
          for (std::size_t i : needed[h]) row_[h][i - tile_.begin[h]] = row_of(plan.hoisted_requests[h][i]);
    }
    exec_.fence();
    return computed;
  }

  const rows_view& rows() const { return rows_; }
  // The row of hoisted register h's window `window_index`, which compute() made resident.
  int row(std::size_t h, std::size_t window_index) const {
    const int r = row_[h][window_index - tile_.begin[h]];
    if (r < 0) throw Error(ErrorCategory::internal, "hoisted window read before it was computed");
    return r;
  }
  std::size_t bytes() const {
    std::size_t b = rows_.span() * sizeof(Real) + staging_.span() * sizeof(double);
    for (const auto& in : inputs_) b += in.span() * sizeof(double);
    return b;
  }

 private:
  // Computes fold stage s's `requests` into the next free rows; returns their number.
  std::size_t compute_stage(std::size_t s, const std::vector<kernels::FoldRequest>& requests) {
    const SweepPlan& plan = *plan_;
    const auto& st = plan.fold_stages[s];
    const int n_sym = static_cast<int>(plan.n_symbols), nb = static_cast<int>(st.n_bars);
    const bool in_place = writes_rows_in_place && st.n_bars == plan.n_bars;
    double* storage = nullptr;
    std::size_t capacity = 0;
    if (in_place) {
      storage = reinterpret_cast<double*>(rows_.data()) + used_ * rows_.extent(1);
      capacity = rows_.extent(0) - used_;
    } else {
      const std::size_t need = requests.size() * plan.n_symbols * st.n_bars;
      if (staging_.extent(0) < need)
        staging_ = Kokkos::View<double*, memory_space>(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::hoisted_staging")), need);
      storage = staging_.data();
      capacity = requests.size();
    }
    kernels::FoldHoister<ExecSpace, double> hoister(requests, static_cast<int>(st.inputs.size()), n_sym, nb, storage,
                                                    capacity);
    hoister.compute(exec_, inputs_[s]);  // fences
    if (!in_place) {
      detail::CopyFoldRows<ExecSpace, Real> copy{hoister.series(), rows_, static_cast<std::int64_t>(used_), n_sym, nb};
      const auto n = static_cast<std::int64_t>(hoister.n_series()) * n_sym * nb;
      Kokkos::parallel_for("kbt::hoisted::copy_rows",
                           Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec_, 0, n), copy);
    }
    for (const auto& r : requests) resident_[s][r] = static_cast<int>(used_) + hoister.series_index(r);
    used_ += hoister.n_series();
    return hoister.n_series();
  }

  ExecSpace exec_;
  const SweepPlan* plan_ = nullptr;
  rows_view rows_;
  Kokkos::View<double*, memory_space> staging_;
  std::vector<typename kernels::FoldViews<ExecSpace, double>::series_view> inputs_;
  HoistTile tile_;
  std::vector<std::vector<int>> row_;  // per register, per window of the tile: its row, -1 until computed
  std::vector<std::map<kernels::FoldRequest, int>> resident_;  // per stage: the computed series' rows
  std::size_t used_ = 0;                                                    // rows holding series of the tile
};

}  // namespace kbt
