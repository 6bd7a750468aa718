#pragma once
// One symbol's bars as a source hands them over, and the rules every source
// shares (docs/data-format.md "One set of rules"): the CSV import and pandas
// DataFrames from Python use them, and so can a code with its own tables.

#include <kbt/data/bar_data.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kbt {

struct SymbolBars {
  std::string symbol;
  std::vector<std::int64_t> times;                     // in the source's row order
  std::map<std::string, std::vector<double>> columns;  // bar columns by kbt's names, one value per row
};

// The columns every bar source must give, the prices: open, high, low, close
// (volume may be absent: NaN). Each value is NaN (no bar) or finite and > 0.
const std::vector<std::string>& price_columns();

// The bar column a source's column name stands for: names match without
// regard to case ("Open", "CLOSE"); "" for a column kbt does not use.
std::string bar_column_named(const std::string& source_name);

// Times strictly increasing: a row out of order or repeated is refused (no
// source is sorted silently). Checks rows [max(from, 1), size); the message
// comes from `fail(row, previous_row)` (0-based), so that each source names its
// rows its own way (a CSV line, a DataFrame row). A reader that appends row by
// row passes from = the new row.
void check_time_order(const std::vector<std::int64_t>& times, std::size_t from,
                      const std::function<void(std::size_t row, std::size_t previous)>& fail);

// Every symbol on the union of their times; a symbol without a row at a time
// holds NaN there, in each of open..volume and in the optional columns that
// any symbol has (funding_rate). Symbols must be in time order already.
BarData merge_on_time_union(const std::vector<SymbolBars>& per_symbol);

}  // namespace kbt
