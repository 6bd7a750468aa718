#pragma once
// What the fold kernels are asked to compute: one windowed series per
// (op, input, window), hoisted out of the per-combo sweep (SPEC §1, §6).
// Plain data, host only; the kernels see a device copy (FoldTask).

#include <string>

namespace kbt::kernels {

// Every windowed / recursive series op the fold kernels compute. The exact
// numeric definition of each is in docs/kernels.md ("Definitions").
enum class FoldOp : int {
  rolling_sum,   // x[t-w+1] + ... + x[t]
  rolling_mean,  // rolling_sum / w              (sma)
  rolling_std,   // sample std, ddof = 1
  rolling_min,   // exact, NaN-propagating
  rolling_max,   // exact, NaN-propagating
  zscore,        // (x[t] - mean) / std over the window
  roc,           // x[t] / x[t-w] - 1
  lag,           // x[t-w]
  lead,          // x[t+w] (labelling jobs only: it looks ahead)
  ema,           // recursive, alpha = 2 / (w + 1), seeded with the first non-NaN x
  rsi,           // Wilder RSI over w deltas
  atr,           // Wilder ATR over w true ranges (reads high, low and close)
};

// Stable lower-case name ("rolling_mean", ...), as in docs and error messages.
inline const char* to_string(FoldOp op) noexcept {
  switch (op) {
    case FoldOp::rolling_sum: return "rolling_sum";
    case FoldOp::rolling_mean: return "rolling_mean";
    case FoldOp::rolling_std: return "rolling_std";
    case FoldOp::rolling_min: return "rolling_min";
    case FoldOp::rolling_max: return "rolling_max";
    case FoldOp::zscore: return "zscore";
    case FoldOp::roc: return "roc";
    case FoldOp::lag: return "lag";
    case FoldOp::lead: return "lead";
    case FoldOp::ema: return "ema";
    case FoldOp::rsi: return "rsi";
    case FoldOp::atr: return "atr";
  }
  return "unknown";
}

// One hoisted series. `input` indexes the first dimension of the input View
// ([n_inputs][n_sym][n_bars]); for atr it is the close series and `high` /
// `low` name the other two inputs (unused, -1, for every other op).
// `window` is the window length w, at least the language's minimum
// (docs/language.md §5): 0 for lag and lead, 2 for rolling_std and zscore, 1
// otherwise.
struct FoldRequest {
  FoldOp op = FoldOp::rolling_mean;
  int input = 0;
  int window = 1;
  int high = -1;
  int low = -1;

  friend bool operator==(const FoldRequest& a, const FoldRequest& b) {
    return a.op == b.op && a.input == b.input && a.window == b.window &&
           a.high == b.high && a.low == b.low;
  }
  friend bool operator!=(const FoldRequest& a, const FoldRequest& b) { return !(a == b); }
};

// Smallest window of an op (docs/language.md §5).
inline int min_window(FoldOp op) noexcept {
  switch (op) {
    case FoldOp::lag:
    case FoldOp::lead: return 0;
    case FoldOp::rolling_std:
    case FoldOp::zscore: return 2;
    default: return 1;
  }
}

// "rolling_mean(input 3, 20)" / "atr(close 3, high 1, low 2, 14)", for messages.
inline std::string describe(const FoldRequest& r) {
  std::string s = std::string(to_string(r.op)) + "(";
  if (r.op == FoldOp::atr) {
    s += "close " + std::to_string(r.input) + ", high " + std::to_string(r.high) +
         ", low " + std::to_string(r.low);
  } else {
    s += "input " + std::to_string(r.input);
  }
  return s + ", " + std::to_string(r.window) + ")";
}

}  // namespace kbt::kernels
