#pragma once
// PBO by its definition, for tests (test_validation_pbo.cpp,
// test_validation_stage.cpp): every way of choosing half the blocks
// enumerated with std::next_permutation, Sharpe ratios from the concatenated
// returns, the in-sample best's out-of-sample relative rank and logit; PBO =
// the share of logits <= 0. `m`: [periods][n] row-major.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace kbt::test {

inline double brute_force_pbo(const std::vector<double>& m, std::size_t periods, std::size_t n, std::size_t blocks) {
  const std::size_t len = periods / blocks, skip = periods - len * blocks;
  std::vector<int> pick(blocks, 0);
  std::fill(pick.begin() + static_cast<long>(blocks / 2), pick.end(), 1);
  const auto sharpe = [&](std::size_t j, int side) {
    std::vector<double> x;
    for (std::size_t b = 0; b < blocks; ++b)
      if (pick[b] == side)
        for (std::size_t t = skip + b * len; t < skip + (b + 1) * len; ++t) x.push_back(m[t * n + j]);
    double mean = 0;
    for (double v : x) mean += v;
    mean /= double(x.size());
    double ss = 0;
    for (double v : x) ss += (v - mean) * (v - mean);
    return mean / std::sqrt(ss / double(x.size() - 1));
  };
  std::size_t splits = 0, overfit = 0;
  do {
    std::size_t best = 0;
    for (std::size_t j = 1; j < n; ++j)
      if (sharpe(j, 1) > sharpe(best, 1)) best = j;
    double below = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (j != best) below += sharpe(j, 0) < sharpe(best, 0) ? 1 : (sharpe(j, 0) == sharpe(best, 0) ? 0.5 : 0);
    const double w = (below + 1) / double(n + 1);
    overfit += std::log(w / (1 - w)) <= 0;
    ++splits;
  } while (std::next_permutation(pick.begin(), pick.end()));
  return double(overfit) / double(splits);
}

}  // namespace kbt::test
