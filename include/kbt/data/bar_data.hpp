#pragma once
// In-memory market data on the master bar grid (docs/data-format.md): every symbol shares
// one timestamp vector; a symbol missing a bar holds NaN there.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kbt {

// Names of the per-symbol bar columns; open..volume are required.
inline const std::vector<std::string>& required_bar_columns() {
  static const std::vector<std::string> names{"open", "high", "low", "close", "volume"};
  return names;
}

struct BarData {
  std::vector<std::int64_t> timestamps;  // [n_bars] ns since epoch, UTC, strictly increasing
  std::vector<std::string> symbols;      // [n_sym] unique names
  std::vector<std::string> venues;       // [n_sym] or empty when the data has no venues

  // Per-symbol columns ("open", ..., "funding_rate"), symbol-major:
  // value of symbol s at bar b is columns.at(name)[s * n_bars() + b].
  std::map<std::string, std::vector<double>> columns;

  // Exogenous series already ASOF-joined onto the bar grid, [n_bars] each;
  // shared by all symbols.
  std::map<std::string, std::vector<double>> exo;

  std::size_t n_bars() const { return timestamps.size(); }
  std::size_t n_symbols() const { return symbols.size(); }
  bool has_column(const std::string& name) const { return columns.count(name) != 0; }

  // Pointer to the n_bars() values of column `name` for symbol index `sym`.
  const double* series(const std::string& name, std::size_t sym) const {
    return columns.at(name).data() + sym * n_bars();
  }
  // Index of a symbol by name, or -1.
  long symbol_index(const std::string& name) const {
    for (std::size_t i = 0; i < symbols.size(); ++i)
      if (symbols[i] == name) return static_cast<long>(i);
    return -1;
  }
};

}  // namespace kbt
