#pragma once
// What a strategy will compute on this data that is almost surely not what its
// author meant (docs/language.md "Warnings"): a windowed op whose window is
// longer than the data at some or every value of its param, an htf timeframe
// longer than the data, an output that is NaN whatever the bar (`1/0`). Each
// finding names the op as text. `kbt check --data` and `kbt run` print them.

#include <kbt/data/bar_data.hpp>
#include <kbt/lang/program.hpp>

#include <string>
#include <vector>

namespace kbt {

std::vector<std::string> strategy_warnings(const Program& program, const BarData& bars);

// Register `reg` as the language text it was compiled from, up to a depth
// ("rolling_mean(close, fast)", "(1 / 0)"); deeper operands are "...".
std::string register_text(const Program& program, std::int32_t reg, int depth = 4);

}  // namespace kbt
