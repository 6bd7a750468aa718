#pragma once
// The fastest repetition, a statistic beside Google Benchmark's
// mean/median/stddev/cv (register with ->ComputeStatistics("min", fastest)).
// On a shared machine (a cloud VM) a kernel's time varies with the load of
// whoever shares the physical core (docs/benchmarks.md): the same kernel call on
// the same allocation takes 0.41 s or 0.69 s depending on when it runs. Taken
// over repetitions interleaved with what it is compared with
// (--benchmark_enable_random_interleaving), min / min is the ratio on an
// undisturbed core.

#include <algorithm>
#include <vector>

inline double fastest(const std::vector<double>& v) {
  return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
}
