#pragma once
// What the fold kernels are asked to compute: one windowed series per
// (op, input, window), hoisted out of the per-combo sweep (docs/kernels.md, docs/sweep.md).
// Plain data, host only; the kernels see a device copy (FoldTask).

#include <kbt/lang/op_table.hpp>

#include <string>
#include <tuple>

namespace kbt::kernels {

// The ops the fold kernels compute are the language's windowed opcodes
// (kbt/lang/op_table.hpp: OpFamily::windowed); their exact numeric definitions
// are in docs/kernels.md ("Definitions"), their names and minimum windows in
// the op table.
using FoldOp = OpCode;

// Cross-sectional ops applied in order, bar by bar, to a fold's series
// (docs/kernels.md "Hoisted cross-sections"): cs_rank(roc(close, w)) is the
// fold {roc, close, w} followed by cs_rank. Empty for a plain fold.
struct CrossSectionChain {
  static constexpr int capacity = 3;
  int n = 0;
  OpCode ops[capacity] = {};

  friend bool operator==(const CrossSectionChain& a, const CrossSectionChain& b) {
    if (a.n != b.n) return false;
    for (int k = 0; k < a.n; ++k)
      if (a.ops[k] != b.ops[k]) return false;
    return true;
  }
  friend bool operator<(const CrossSectionChain& a, const CrossSectionChain& b) {
    if (a.n != b.n) return a.n < b.n;
    for (int k = 0; k < a.n; ++k)
      if (a.ops[k] != b.ops[k]) return a.ops[k] < b.ops[k];
    return false;
  }
};

// One hoisted series. `input` indexes the first dimension of the input View
// ([n_inputs][n_sym][n_bars]); for atr it is the close series and `high` /
// `low` name the other two inputs (unused, -1, for every other op).
// `window` is the window length w, at least the op's minimum (min_window).
// `cross_section`, when not empty, transforms the series after the fold.
struct FoldRequest {
  FoldOp op = FoldOp::rolling_mean;
  int input = 0;
  int window = 1;
  int high = -1;
  int low = -1;
  CrossSectionChain cross_section{};

  friend bool operator==(const FoldRequest& a, const FoldRequest& b) {
    return a.op == b.op && a.input == b.input && a.window == b.window &&
           a.high == b.high && a.low == b.low && a.cross_section == b.cross_section;
  }
  friend bool operator!=(const FoldRequest& a, const FoldRequest& b) { return !(a == b); }
  // A total order, so that requests key ordered maps (each distinct one a series).
  friend bool operator<(const FoldRequest& a, const FoldRequest& b) {
    return std::tie(a.op, a.input, a.window, a.high, a.low, a.cross_section) <
           std::tie(b.op, b.input, b.window, b.high, b.low, b.cross_section);
  }
};

// "rolling_mean(input 3, 20)" / "atr(close 3, high 1, low 2, 14)", for messages.
inline std::string describe(const FoldRequest& r) {
  std::string s = std::string(to_string(r.op)) + "(";
  if (r.op == FoldOp::atr) {
    s += "close " + std::to_string(r.input) + ", high " + std::to_string(r.high) +
         ", low " + std::to_string(r.low);
  } else {
    s += "input " + std::to_string(r.input);
  }
  s += ", " + std::to_string(r.window) + ")";
  for (int k = 0; k < r.cross_section.n; ++k) s += std::string(" then ") + to_string(r.cross_section.ops[k]);
  return s;
}

}  // namespace kbt::kernels
