#pragma once
// A digest of market data as loaded (docs/results.md "Identity of the data"):
// the timestamps, symbols, venues and every column and exo series, by name
// and by the bits of every value, in a fixed order. It tells an edited data
// file from the one a run started on even when its size and modification time
// were kept; it is not a cryptographic hash. ~1 ns per value on one core
// (benchmarks/bench_data_load.cpp).

#include <kbt/data/bar_data.hpp>

#include <string>

namespace kbt {

// 16 lower-case hex digits.
std::string data_digest(const BarData& bars);

}  // namespace kbt
