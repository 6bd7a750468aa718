#pragma once
// From a compiled Program (kbt/lang/program.hpp) to fold requests: every
// hoisted series (Program::hoisted) x every distinct window value it takes over
// the grid (hoisted_window_values) becomes one FoldRequest, computed once by a
// FoldHoister and read by every combo (docs/kernels.md).
//
// The fold input View holds the param-free registers the hoisted ops read
// (`input_registers`, in order). Such an input may itself be a hoisted series
// with a constant window (`zscore(sma(close, 10), w)`): the plan is then split
// into stages, and stage k's inputs are registers that the pointwise code or an
// earlier stage computes. Each frame (timeframe) has its own plans: its series
// have their own bar count.
//
//   auto stages = kbt::kernels::make_hoisting_plan(program);      // frame 0
//   for (const auto& stage : stages) {
//     // inputs: stage.input_registers' values, [n_inputs][n_sym][n_bars]
//     kbt::kernels::FoldHoister<Space, Real> hoist(stage.requests, stage.n_inputs(), n_sym, n_bars);
//     hoist.compute(exec, inputs);
//     // combo with param values p: series stage.series_index(reg, window of reg at p)
//   }

#include <cstdint>
#include <vector>

#include <kbt/kernels/fold_request.hpp>
#include <kbt/lang/program.hpp>

namespace kbt::kernels {

// The FoldOp computing a windowed OpCode; kbt::Error(internal) for any other.
FoldOp fold_op_of(OpCode op);

struct HoistingStage {
  std::int32_t frame = 0;
  // Register whose series is fold input i.
  std::vector<std::int32_t> input_registers;
  // Distinct requests; a FoldHoister built from them fills series i with request i.
  std::vector<FoldRequest> requests;

  struct Entry {
    std::int32_t reg = -1;               // Program::hoisted[..].reg
    std::vector<std::int64_t> windows;   // its distinct window values, ascending
    std::vector<int> series;             // series index of each window value
  };
  // The hoisted registers this stage computes.
  std::vector<Entry> entries;

  int n_inputs() const { return static_cast<int>(input_registers.size()); }
  // Series index of hoisted register `reg` at window value `window`, or -1 when
  // this stage does not compute it.
  int series_index(std::int32_t reg, std::int64_t window) const;
};

// Which registers a sweep hoists out of the combos' threads, one series per
// distinct window value (docs/sweep.md "Where each register lives"): a windowed
// op of param-free input whose window varies over the grid (Program::hoisted),
// and a base-timeframe cross-sectional op over such a series, chains of up to
// CrossSectionChain::capacity ops (cs_rank(roc(close, w)), docs/kernels.md
// "Hoisted cross-sections"). The one rule for the sweep plan and the cost model.
struct HoistedRegister {
  std::int32_t fold = -1;           // the windowed register whose fold it starts from; -1: not hoisted
  CrossSectionChain cross_section;  // applied to the fold's series, bar by bar
};
std::vector<HoistedRegister> hoisted_registers(const Program& program);

// The stages that compute every hoisted series of `frame` (empty when there is
// none), in dependency order.
std::vector<HoistingStage> make_hoisting_plan(const Program& program, std::int32_t frame = 0);

}  // namespace kbt::kernels
