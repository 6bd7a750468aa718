#include <kbt/core/error.hpp>
#include <kbt/sweep/detail/hoist_tiling.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace kbt {

HoistTiling::HoistTiling(const SweepPlan& plan, std::size_t max_rows) : plan_(&plan) {
  const std::size_t n_h = plan.hoisted_regs.size();
  const std::size_t total = plan.n_hoisted_series();
  if (n_h > 0 && max_rows < n_h)
    throw Error(ErrorCategory::limit,
                "the memory budget holds " + std::to_string(max_rows) + " hoisted series; this strategy needs at least " +
                    std::to_string(n_h) + " at a time (one window of each of its " + std::to_string(n_h) +
                    " windowed params, " + std::to_string(plan.n_symbols) + " symbols x " +
                    std::to_string(plan.n_bars) + " bars each): raise sweep.memory_budget_mb");
  step_.assign(n_h, 0);
  count_.assign(n_h, 1);
  // Slowest-varying param first (grid row order: the last param varies
  // fastest); a window expression ranks by the slowest param it reads.
  std::vector<std::int32_t> key(n_h);
  for (std::size_t h = 0; h < n_h; ++h) {
    major_first_.push_back(h);
    key[h] = plan.hoisted_window_param[h];
    if (plan.hoisted_window_kind[h] == WindowKind::scalar) {
      const auto read = params_read(plan.window_code, plan.hoisted_window_param[h]);  // ascending
      key[h] = read.empty() ? std::numeric_limits<std::int32_t>::max() : read.front();
    }
  }
  std::stable_sort(major_first_.begin(), major_first_.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
  // The budget goes to the fastest-varying registers first, keeping one row for
  // each slower one.
  std::size_t remaining = total <= max_rows ? total : max_rows;
  for (std::size_t k = n_h; k-- > 0;) {
    const std::size_t h = major_first_[k];
    const std::size_t n = plan.hoisted_windows[h].size();
    step_[h] = std::max<std::size_t>(1, std::min(n, remaining - k));  // k slower registers keep one row each
    remaining -= step_[h];
  }
  for (std::size_t h = 0; h < n_h; ++h) {
    count_[h] = (plan.hoisted_windows[h].size() + step_[h] - 1) / step_[h];
    n_tiles_ *= count_[h];
  }
}

bool HoistTiling::recomputes_along_rows() const {
  for (std::size_t k = 1; k < major_first_.size(); ++k)
    if (count_[major_first_[k]] > 1) return true;
  return false;
}

std::size_t HoistTiling::tile_of(const double* combo, std::size_t* window_index) const {
  std::size_t id = 0;
  for (const std::size_t h : major_first_) {
    const std::int32_t at = plan_->hoisted_window_param[h];
    const auto w = static_cast<std::int64_t>(plan_->hoisted_window_kind[h] == WindowKind::scalar
                                                 ? evaluate_scalar_register(plan_->window_code, at, combo)
                                                 : combo[at]);
    const auto& ws = plan_->hoisted_windows[h];
    const auto it = std::lower_bound(ws.begin(), ws.end(), w);
    if (it == ws.end() || *it != w)
      throw Error(ErrorCategory::internal, "combo window value " + std::to_string(w) + " is not a hoisted window");
    const auto idx = static_cast<std::size_t>(it - ws.begin());
    window_index[h] = idx;
    id = id * count_[h] + idx / step_[h];
  }
  return id;
}

HoistTile HoistTiling::tile(std::size_t id) const {
  HoistTile t;
  const std::size_t n_h = step_.size();
  t.begin.assign(n_h, 0);
  t.end.assign(n_h, 0);
  for (std::size_t k = n_h; k-- > 0;) {
    const std::size_t h = major_first_[k];
    const std::size_t c = id % count_[h];
    id /= count_[h];
    t.begin[h] = c * step_[h];
    t.end[h] = std::min(plan_->hoisted_windows[h].size(), t.begin[h] + step_[h]);
  }
  return t;
}

}  // namespace kbt
