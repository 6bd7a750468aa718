#pragma once
// The parameter grid: the cartesian product of the parameter axes, with a fixed
// numbering of its combos, constraint filtering and deterministic sampling.
//
// Numbering (mixed radix, first parameter slowest, last fastest): with axis sizes
// n_0 .. n_{k-1} and value indices i_0 .. i_{k-1},
//   id = ((i_0 * n_1 + i_1) * n_2 + i_2) ... * n_{k-1} + i_{k-1}
// so ids run 0 .. n_0*...*n_{k-1} - 1. A grid without parameters has one combo (id 0).
// The numbering is part of the results format: it never depends on the device.

#include <kbt/config/run_config.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

class ParamGrid {
 public:
  // Throws kbt::Error: `grid` for an axis without values, `limit` when the number
  // of combos does not fit in 64 bits.
  explicit ParamGrid(std::vector<ParamSpec> params);

  std::size_t n_params() const { return axes_.size(); }
  std::uint64_t n_combos() const { return n_combos_; }
  const ParamSpec& axis(std::size_t i) const { return axes_.at(i); }
  const std::vector<ParamSpec>& axes() const { return axes_; }
  // Position of the parameter called `name`, or -1.
  int index_of(const std::string& name) const;

  // The parameter values of combo `id` into out[0 .. n_params()-1], in declaration
  // order. Throws kbt::Error(grid) if id >= n_combos().
  void combo_values(std::uint64_t id, double* out) const;
  // The value index on every axis of combo `id` into out[0 .. n_params()-1].
  void combo_indices(std::uint64_t id, std::size_t* out) const;
  // Inverse of combo_indices.
  std::uint64_t combo_id(const std::size_t* indices) const;

 private:
  std::vector<ParamSpec> axes_;
  std::uint64_t n_combos_ = 1;
};

// Per name, whether the grid's param of that name has only integer values
// (ParamSpec::is_integer); false for a name the grid does not have.
std::vector<bool> integer_params_of(const ParamGrid& grid, const std::vector<std::string>& names);

// Product of the axis sizes, or nullopt when it does not fit in 64 bits.
std::optional<std::uint64_t> checked_combo_count(const std::vector<ParamSpec>& params);

// The ids (ascending) of the combos for which keep(values) is true; `values` has
// n_params() entries in declaration order. Throws kbt::Error(grid) when no combo
// survives.
std::vector<std::uint64_t> filter_combos(const ParamGrid& grid, const std::function<bool(const double*)>& keep);

// Walks the grid in id order from `first_id` with an odometer (last axis
// fastest; no division per id), calling visit(id, values) until it returns
// false or the grid ends.
void walk_grid(const ParamGrid& grid, std::uint64_t first_id,
               const std::function<bool(std::uint64_t id, const double* values)>& visit);

// SplitMix64 (Steele, Lea, Flood 2014): state += 0x9E3779B97F4A7C15, then the
// output z = state mixed as z = (z ^ z>>30) * 0xBF58476D1CE4E5B9,
// z = (z ^ z>>27) * 0x94D049BB133111EB, z ^ z>>31.
std::uint64_t splitmix64_next(std::uint64_t& state);

// A uniform integer in [0, bound) from SplitMix64, by rejection: draw r until
// r >= 2^64 mod bound, return r mod bound. bound must be >= 1.
std::uint64_t uniform_below(std::uint64_t& state, std::uint64_t bound);

// `n` of `ids` without replacement (`--sample N --seed S`), returned ascending.
// Robert Floyd's algorithm over positions 0..m-1 (m = ids.size()), state = seed:
//   for j in m-n .. m-1: t = uniform_below(state, j+1);
//                        take t unless already taken, else take j.
// The result is ids at the taken positions, sorted. n >= m returns every id sorted.
// Identical on every platform (no std:: distributions).
std::vector<std::uint64_t> sample_combos(const std::vector<std::uint64_t>& ids, std::uint64_t n, std::uint64_t seed);

// The positions sample_combos takes from a list of `m` ids, ascending (every
// position when n >= m).
std::vector<std::uint64_t> sample_positions(std::uint64_t m, std::uint64_t n, std::uint64_t seed);

}  // namespace kbt
