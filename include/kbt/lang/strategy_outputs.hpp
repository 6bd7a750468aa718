#pragma once
// What a strategy says at every bar for every symbol, before simulation.
// Produced by the expression evaluator, consumed by the simulator.
// Booleans are three-valued doubles: 1.0 = true, 0.0 = false, NaN = unknown.

#include <cstddef>
#include <vector>

namespace kbt {

struct StrategyOutputs {
  enum class Form { position, entries_exits };
  Form form = Form::position;
  std::size_t n_symbols = 0;
  std::size_t n_bars = 0;

  // All arrays are symbol-major [n_symbols * n_bars]: element (s, b) at s * n_bars + b.
  // Form::position: target exposure per symbol (fraction of equity); NaN keeps the
  // previous target.
  std::vector<double> target;
  // Form::entries_exits: each present array is a three-valued boolean; an absent
  // (empty) array never fires.
  std::vector<double> long_entry, long_exit, short_entry, short_exit;
};

}  // namespace kbt
