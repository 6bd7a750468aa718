#include <kbt/core/error.hpp>
#include <kbt/config/param_grid.hpp>

#include "config/number_text.hpp"

#include <algorithm>
#include <limits>
#include <unordered_set>
#include <utility>

namespace kbt {

std::optional<std::uint64_t> checked_combo_count(const std::vector<ParamSpec>& params) {
  std::uint64_t count = 1;
  for (const auto& p : params) {
    const std::uint64_t n = p.values.size();
    if (n != 0 && count > std::numeric_limits<std::uint64_t>::max() / n) return std::nullopt;
    count *= n;
  }
  return count;
}

ParamGrid::ParamGrid(std::vector<ParamSpec> params) : axes_(std::move(params)) {
  for (const auto& p : axes_)
    if (p.values.empty())
      throw Error(ErrorCategory::grid, (p.origin.line > 0 ? p.origin.where() + ": " : std::string()) + "parameter '" +
                                           p.name + "' has no values");
  const auto count = checked_combo_count(axes_);
  if (!count) {
    std::string sizes;
    for (const auto& p : axes_) sizes += (sizes.empty() ? "" : " x ") + p.name + " " + std::to_string(p.values.size());
    throw Error(ErrorCategory::limit, "the parameter grid (" + sizes + ") has more than " +
                                          detail::format_count(std::numeric_limits<std::uint64_t>::max()) +
                                          " combos");
  }
  n_combos_ = *count;
}

int ParamGrid::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < axes_.size(); ++i)
    if (axes_[i].name == name) return static_cast<int>(i);
  return -1;
}

void ParamGrid::combo_indices(std::uint64_t id, std::size_t* out) const {
  if (id >= n_combos_)
    throw Error(ErrorCategory::grid, "combo id " + std::to_string(id) + " is outside the grid of " +
                                         std::to_string(n_combos_) + " combos");
  for (std::size_t k = axes_.size(); k-- > 0;) {
    const std::uint64_t n = axes_[k].values.size();
    out[k] = static_cast<std::size_t>(id % n);
    id /= n;
  }
}

void ParamGrid::combo_values(std::uint64_t id, double* out) const {
  std::vector<std::size_t> idx(axes_.size());
  combo_indices(id, idx.data());
  for (std::size_t k = 0; k < axes_.size(); ++k) out[k] = axes_[k].values[idx[k]];
}

std::uint64_t ParamGrid::combo_id(const std::size_t* indices) const {
  std::uint64_t id = 0;
  for (std::size_t k = 0; k < axes_.size(); ++k) {
    if (indices[k] >= axes_[k].values.size())
      throw Error(ErrorCategory::grid, "index " + std::to_string(indices[k]) + " is outside the " +
                                           std::to_string(axes_[k].values.size()) + " values of parameter '" +
                                           axes_[k].name + "'");
    id = id * axes_[k].values.size() + indices[k];
  }
  return id;
}

void walk_grid(const ParamGrid& grid, std::uint64_t first_id,
               const std::function<bool(std::uint64_t id, const double* values)>& visit) {
  if (first_id >= grid.n_combos()) return;
  const std::size_t k = grid.n_params();
  std::vector<std::size_t> idx(k, 0);
  std::vector<double> values(k);
  grid.combo_indices(first_id, idx.data());
  for (std::size_t j = 0; j < k; ++j) values[j] = grid.axis(j).values[idx[j]];
  for (std::uint64_t id = first_id; id < grid.n_combos(); ++id) {
    if (!visit(id, values.data())) return;
    for (std::size_t j = k; j-- > 0;) {
      if (++idx[j] < grid.axis(j).values.size()) {
        values[j] = grid.axis(j).values[idx[j]];
        break;
      }
      idx[j] = 0;
      values[j] = grid.axis(j).values[0];
    }
  }
}

std::vector<std::uint64_t> filter_combos(const ParamGrid& grid, const std::function<bool(const double*)>& keep) {
  std::vector<std::uint64_t> kept;
  walk_grid(grid, 0, [&](std::uint64_t id, const double* values) {
    if (keep(values)) kept.push_back(id);
    return true;
  });
  if (kept.empty())
    throw Error(ErrorCategory::grid, "the constraints reject every one of the " + detail::format_count(grid.n_combos()) +
                                         " combos of the grid; nothing to simulate");
  return kept;
}

std::uint64_t splitmix64_next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t uniform_below(std::uint64_t& state, std::uint64_t bound) {
  if (bound == 0) throw Error(ErrorCategory::internal, "uniform_below: bound must be >= 1");
  const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const std::uint64_t r = splitmix64_next(state);
    if (r >= threshold) return r % bound;
  }
}

std::vector<std::uint64_t> sample_positions(std::uint64_t m, std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> positions;
  if (n >= m) {
    positions.resize(static_cast<std::size_t>(m));
    for (std::uint64_t i = 0; i < m; ++i) positions[static_cast<std::size_t>(i)] = i;
    return positions;
  }
  std::uint64_t state = seed;
  std::unordered_set<std::uint64_t> taken;
  taken.reserve(static_cast<std::size_t>(n) * 2);
  positions.reserve(static_cast<std::size_t>(n));
  for (std::uint64_t j = m - n; j < m; ++j) {
    const std::uint64_t t = uniform_below(state, j + 1);
    const std::uint64_t pick = taken.count(t) ? j : t;
    taken.insert(pick);
    positions.push_back(pick);
  }
  std::sort(positions.begin(), positions.end());
  return positions;
}

std::vector<std::uint64_t> sample_combos(const std::vector<std::uint64_t>& ids, std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> out;
  for (const std::uint64_t p : sample_positions(ids.size(), n, seed)) out.push_back(ids[static_cast<std::size_t>(p)]);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<bool> integer_params_of(const ParamGrid& grid, const std::vector<std::string>& names) {
  std::vector<bool> out;
  for (const auto& name : names) {
    const int i = grid.index_of(name);
    out.push_back(i >= 0 && grid.axis(static_cast<std::size_t>(i)).is_integer);
  }
  return out;
}

}  // namespace kbt
