// ComboRows: the rows of a sweep generated on demand (include/kbt/config/combo_rows.hpp).

#include <kbt/config/combo_rows.hpp>

#include <kbt/core/error.hpp>

#include <algorithm>

#include "config/number_text.hpp"

namespace kbt {

ComboRows ComboRows::of_grid(const ParamGrid& grid, Keep keep) {
  ComboRows rows;
  rows.grid_ = std::make_shared<const ParamGrid>(grid);
  if (!keep) {
    rows.n_ = grid.n_combos();
    return rows;
  }
  // The counting pass: every kAnchorRows-th kept combo is an anchor.
  std::uint64_t n = 0;
  walk_grid(grid, 0, [&](std::uint64_t id, const double* values) {
    if (!keep(values)) return true;
    if (n % kAnchorRows == 0) rows.anchors_.push_back(id);
    ++n;
    return true;
  });
  if (n == 0)
    throw Error(ErrorCategory::grid, "the constraints reject every one of the " + detail::format_count(grid.n_combos()) +
                                         " combos of the grid; nothing to simulate");
  rows.keep_ = std::make_shared<const Keep>(std::move(keep));
  rows.n_ = n;
  return rows;
}

ComboRows ComboRows::of_ids(const ParamGrid& grid, std::vector<std::uint64_t> ids) {
  for (const std::uint64_t id : ids)
    if (id >= grid.n_combos())
      throw Error(ErrorCategory::grid, "combo id " + std::to_string(id) + " is outside the grid of " +
                                           std::to_string(grid.n_combos()) + " combos");
  ComboRows rows;
  rows.grid_ = std::make_shared<const ParamGrid>(grid);
  rows.n_ = ids.size();
  rows.ids_ = std::make_shared<const std::vector<std::uint64_t>>(std::move(ids));
  return rows;
}

void ComboRows::walk_kept(std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params) const {
  const std::size_t k = n_params();
  std::uint64_t row = first / kAnchorRows * kAnchorRows, out = 0;
  walk_grid(*grid_, anchors_[static_cast<std::size_t>(first / kAnchorRows)],
            [&](std::uint64_t id, const double* values) {
              if (!(*keep_)(values)) return true;
              if (row >= first) {
                if (ids) ids[out] = id;
                if (params) std::copy(values, values + k, params + out * k);
                ++out;
              }
              ++row;
              return out < count;
            });
  if (out != count) throw Error(ErrorCategory::internal, "ComboRows: the grid ended before the requested rows");
}

void ComboRows::read(std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params) const {
  if (first > n_ || count > n_ - first) throw Error(ErrorCategory::internal, "ComboRows: rows out of range");
  if (count == 0) return;
  const std::size_t k = n_params();
  if (keep_) return walk_kept(first, count, ids, params);
  if (ids_) {
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t id = (*ids_)[static_cast<std::size_t>(first + i)];
      if (ids) ids[i] = id;
      if (params) grid_->combo_values(id, params + i * k);
    }
    return;
  }
  // Every combo of the grid: row r is id r.
  std::uint64_t out = 0;
  walk_grid(*grid_, first, [&](std::uint64_t id, const double* values) {
    if (ids) ids[out] = id;
    if (params) std::copy(values, values + k, params + out * k);
    return ++out < count;
  });
}

std::vector<std::uint64_t> ComboRows::ids(std::uint64_t first, std::uint64_t count) const {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(count));
  read(first, count, out.data(), nullptr);
  return out;
}

std::vector<double> ComboRows::params(std::uint64_t first, std::uint64_t count) const {
  std::vector<double> out(static_cast<std::size_t>(count) * n_params());
  read(first, count, nullptr, out.data());
  return out;
}

ComboRows ComboRows::subset(const std::vector<std::uint64_t>& rows) const {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if ((i > 0 && rows[i] <= rows[i - 1]) || rows[i] >= n_)
      throw Error(ErrorCategory::internal, "ComboRows::subset: rows not ascending or out of range");
  std::vector<std::uint64_t> ids;
  ids.reserve(rows.size());
  if (!keep_) {
    for (const std::uint64_t r : rows) ids.push_back(ids_ ? (*ids_)[static_cast<std::size_t>(r)] : r);
    return of_ids(*grid_, std::move(ids));
  }
  // One walk per anchor block that holds wanted rows: at most one pass over
  // the grid however many rows are wanted.
  for (std::size_t i = 0; i < rows.size();) {
    const std::uint64_t block = rows[i] / kAnchorRows;
    std::size_t j = i;
    while (j < rows.size() && rows[j] / kAnchorRows == block) ++j;
    std::uint64_t row = block * kAnchorRows;
    std::size_t next = i;
    walk_grid(*grid_, anchors_[static_cast<std::size_t>(block)], [&](std::uint64_t id, const double* values) {
      if (!(*keep_)(values)) return true;
      if (row == rows[next]) {
        ids.push_back(id);
        ++next;
      }
      ++row;
      return next < j;
    });
    if (next != j) throw Error(ErrorCategory::internal, "ComboRows: the grid ended before the requested rows");
    i = j;
  }
  return of_ids(*grid_, std::move(ids));
}

ComboRows ComboRows::sample(std::uint64_t n, std::uint64_t seed) const {
  if (n >= n_) return *this;
  return subset(sample_positions(n_, n, seed));
}

}  // namespace kbt
