#pragma once
// Memory-aware hoisting (docs/sweep.md): when the hoisted series of a grid do not all
// fit the memory budget, the grid is cut into tiles of window values. A tile
// takes, for every hoisted register, a contiguous range of its distinct window
// values; its series are computed, the combos whose windows all fall in the
// tile are simulated, and the next tile reuses the same memory. Results do not
// depend on the tiling: every combo reads the same series, only from a
// different row.
//
//   HoistTiling tiling(plan, max_rows);   // tile shape from the row budget
//   std::vector<std::size_t> idx(plan.hoisted_regs.size());
//   std::size_t t = tiling.tile_of(combo_params, idx.data());
//   HoistTile tile = tiling.tile(t);      // window ranges to compute
//
// Tiles follow the grid's row order (the last param varies fastest; checkpoint
// chunks run rows in order): the fastest-varying windowed params keep all their
// windows when the budget allows, and the slower ones are cut into ranges, so
// that consecutive combos share a tile and each tile is computed once per run.
// With 1,000 fast x 1,000 slow SMA windows (slow varying fastest) and room for
// 1,400 series, a tile holds every slow window and 400 fast ones: 3 tiles.
// Only when the fastest param's windows alone exceed the budget do its series
// get recomputed along the rows (recomputes_along_rows()).

#include <kbt/sweep/sweep_plan.hpp>

#include <cstddef>
#include <vector>

namespace kbt {

// Per hoisted register (plan order), window indices [begin, end) into
// SweepPlan::hoisted_windows.
struct HoistTile {
  std::vector<std::size_t> begin, end;
  std::size_t rows() const {
    std::size_t n = 0;
    for (std::size_t h = 0; h < begin.size(); ++h) n += end[h] - begin[h];
    return n;
  }
};

class HoistTiling {
 public:
  // Tiles of at most `max_rows` series. kbt::Error(limit) when `max_rows` is
  // below one series per hoisted register (the least a combo needs).
  HoistTiling(const SweepPlan& plan, std::size_t max_rows);

  std::size_t n_tiles() const { return n_tiles_; }
  // Windows per tile along each hoisted register.
  const std::vector<std::size_t>& tile_windows() const { return step_; }

  // The tile of a combo (its values in Program::param_names order) and, in
  // window_index[h], the index of its window value for hoisted register h.
  // kbt::Error(internal) when a window value is not one of the grid's.
  std::size_t tile_of(const double* combo, std::size_t* window_index) const;

  HoistTile tile(std::size_t id) const;

  // Whether a param other than the slowest-varying one is cut: rows in grid
  // order then revisit tiles, and their series are computed more than once.
  bool recomputes_along_rows() const;

 private:
  const SweepPlan* plan_;
  std::vector<std::size_t> step_, count_;  // per hoisted register: windows per tile, tiles along it
  std::vector<std::size_t> major_first_;   // hoisted registers, slowest-varying param first
  std::size_t n_tiles_ = 1;
};

}  // namespace kbt
