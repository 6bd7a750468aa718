#pragma once
// Synthetic inputs that tests and benchmarks share (library kbt_test_support,
// tests/support/CMakeLists.txt): synthetic bars, missing bars punched into
// them, and the SMA-cross strategy most sweep cases start from.

#include <kbt/config/run_config.hpp>
#include <kbt/data/data_io.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kbt::test {

// kbt::synth_bars with n_symbols x n_bars, the given seed and, when `funding`,
// a funding-rate series; every other option at its default.
kbt::BarData synthetic_bars(std::size_t n_symbols, std::size_t n_bars, std::uint64_t seed, bool funding = false);

// A gap: bars [first, first + count) of symbol `symbol` become missing (NaN
// open, high, low, close and volume), which reaches the kernels' warm-up and
// NaN rules.
void add_gap(kbt::BarData& bars, std::size_t symbol, std::size_t first, std::size_t count);

// The first `n` bars of `bars` (every column and exo series; all of them when
// n >= n_bars): short data for tests that run the reference engine.
kbt::BarData first_bars(const kbt::BarData& bars, std::size_t n);

// A parameter axis with these values (as `values: [...]` makes it).
kbt::ParamSpec param_axis(const std::string& name, std::vector<double> values);

// An axis `{range: [lo, hi, step]}`.
struct IntRange {
  int lo, hi, step;
};

// The SMA cross as a run config (data: unused.h5): params fast and slow over
// the two ranges, constraint fast < slow, signals f = sma(close, fast) and
// s = sma(close, slow), position where(f > s, 1, -1), simulation fee_bps.
std::string sma_cross_yaml(IntRange fast, IntRange slow, int fee_bps = 5);

}  // namespace kbt::test
