#pragma once
// Per-row (one symbol, all bars of one timeframe) series ops of the reference
// evaluator. Each follows the formula written in docs/language.md literally.

#include <cstddef>
#include <vector>

namespace kbt::reference {

using Row = std::vector<double>;

Row lag(const Row& x, long k);
Row lead(const Row& x, long k);
Row rolling_sum(const Row& x, long w);
Row rolling_mean(const Row& x, long w);
Row rolling_std(const Row& x, long w);
Row rolling_min(const Row& x, long w);
Row rolling_max(const Row& x, long w);
Row zscore(const Row& x, long w);
Row ema(const Row& x, long span);
Row rsi(const Row& x, long w);
Row roc(const Row& x, long w);
Row atr(const Row& high, const Row& low, const Row& close, long w);

// Cross-sectional ops on the values of all symbols at one bar.
Row cs_rank(const Row& x);
Row cs_zscore(const Row& x);
Row cs_demean(const Row& x);

}  // namespace kbt::reference
