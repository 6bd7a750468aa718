#pragma once
// The combos a sweep simulates, as rows 0 .. size()-1: the grid's combos in id
// order that pass the constraints, or a deterministic sample of them, or an
// explicit list. Any range of rows is generated on demand, so that a sweep
// of 10^8 combos keeps nothing grid-sized in memory (docs/sweep.md "Host
// memory"):
// - no constraints: row r is combo id r;
// - constraints: one counting pass keeps the id of every kAnchorRows-th row;
//   rows [a, b) are regenerated from the anchor at or before a;
// - a sample or a subset: the ids themselves (as many as were asked for).

#include <kbt/config/param_grid.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace kbt {

class ComboRows {
 public:
  using Keep = std::function<bool(const double* values)>;
  static constexpr std::uint64_t kAnchorRows = 4096;

  ComboRows() = default;  // no rows

  // Every combo of `grid` for which keep(values) holds (all of them when
  // `keep` is empty), in id order. Throws kbt::Error(grid) when the
  // constraints reject every combo.
  static ComboRows of_grid(const ParamGrid& grid, Keep keep = {});
  // The combos `ids` of `grid`, in the given order.
  static ComboRows of_ids(const ParamGrid& grid, std::vector<std::uint64_t> ids);

  std::uint64_t size() const { return n_; }
  std::size_t n_params() const { return grid_ ? grid_->n_params() : 0; }
  const ParamGrid& grid() const { return *grid_; }

  // Rows [first, first + count): their combo ids into `ids` [count] and their
  // values into `params` [count][n_params()] (either may be null).
  void read(std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params) const;
  std::vector<std::uint64_t> ids(std::uint64_t first, std::uint64_t count) const;
  std::vector<double> params(std::uint64_t first, std::uint64_t count) const;

  // The rows `rows` (ascending) as a ComboRows of their own, in that order.
  ComboRows subset(const std::vector<std::uint64_t>& rows) const;
  // `n` of the rows drawn by sample_positions(size(), n, seed): sample_combos'
  // rule, without the list of every id.
  ComboRows sample(std::uint64_t n, std::uint64_t seed) const;

 private:
  std::shared_ptr<const ParamGrid> grid_;
  std::shared_ptr<const Keep> keep_;               // set: rows are the kept combos
  std::vector<std::uint64_t> anchors_;             // with keep_: id of rows 0, kAnchorRows, ...
  std::shared_ptr<const std::vector<std::uint64_t>> ids_;  // set: rows are these ids
  std::uint64_t n_ = 0;

  void walk_kept(std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params) const;
};

}  // namespace kbt
