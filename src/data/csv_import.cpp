// `kbt data import`: per-symbol OHLCV CSVs (+ funding and exo CSVs) onto one
// bar grid. Rules: docs/data-format.md "CSV import".

#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/symbol_bars.hpp>
#include <kbt/data/time_zone.hpp>

#include <algorithm>
#include <cctype>
#include <limits>
#include <memory>
#include <set>

#include "data/csv_table.hpp"
#include "data/validation.hpp"

namespace kbt {
namespace {

using detail::fail_csv;

const char* const kTimeNames[] = {"time", "timestamp", "date", "datetime"};

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + (s.empty() ? std::string("(unnamed)") : s);
  return out;
}

// Index of the time column of a headed table.
std::size_t time_column(const detail::CsvTable& t) {
  for (std::size_t i = 0; i < t.header.size(); ++i)
    for (const char* name : kTimeNames)
      if (t.header[i] == name) return i;
  if (t.header[0].empty()) return 0;
  fail_csv(t.path, t.header_line,
           "no time column: expected a column named time, timestamp, date or datetime, or an unnamed "
           "first column (found: " + join(t.header) + ")");
}

void check_unique_header(const detail::CsvTable& t) {
  std::set<std::string> seen;
  for (const auto& h : t.header)
    if (!h.empty() && !seen.insert(h).second) fail_csv(t.path, t.header_line, "column '" + h + "' appears twice");
}

void check_width(const detail::CsvTable& t, const detail::CsvRow& row, std::size_t width) {
  if (row.fields.size() != width)
    fail_csv(t.path, row.line,
             "expected " + std::to_string(width) + " fields, found " + std::to_string(row.fields.size()));
}

// A row's time in UTC: wall-clock times are placed in `zone` when one is given.
std::int64_t parse_row_time(const detail::CsvTable& t, const detail::CsvRow& row, std::size_t col,
                            const TimeZone* zone) {
  const auto parsed = parse_timestamp(row.fields[col]);
  if (!parsed)
    fail_csv(t.path, row.line,
             "cannot parse time '" + row.fields[col] +
                 "' (expected ISO-8601 such as 2021-03-04 or 2021-03-04T05:06:07Z, or an epoch number)");
  if (!zone || !parsed->wall_clock) return parsed->ns;
  std::string why;
  const auto utc = zone->to_utc(parsed->ns, why);
  if (!utc) fail_csv(t.path, row.line, "local time '" + row.fields[col] + "' " + why);
  return *utc;
}

// The last row after the one before (check_time_order), named by its lines.
void check_last_row_in_order(const detail::CsvTable& t, const std::vector<std::int64_t>& times,
                             const std::vector<std::size_t>& lines) {
  check_time_order(times, times.size() - 1, [&](std::size_t row, std::size_t previous) {
    const std::int64_t ns = times[row];
    const std::string problem =
        ns == times[previous]
            ? "duplicate time " + format_iso8601_utc(ns) + " (also at line " + std::to_string(lines[previous]) + ")"
            : "time " + format_iso8601_utc(ns) + " is before " + format_iso8601_utc(times[previous]) + " at line " +
                  std::to_string(lines[previous]);
    fail_csv(t.path, lines[row], problem + "; rows must be in strictly increasing time order");
  });
}

double parse_field(const detail::CsvTable& t, const detail::CsvRow& row, std::size_t col,
                   const std::string& column_name, const CsvDialect& dialect) {
  auto v = detail::parse_csv_number(row.fields[col], dialect.decimal_comma);
  if (v) return *v;
  std::string hint;
  const char mark = dialect.decimal_comma ? '.' : ',';
  if (row.fields[col].find(mark) != std::string::npos)
    hint = dialect.decimal_comma ? " ('.' groups thousands in threes with --decimal-comma, as in 1.000,5)"
                                 : " (',' groups thousands in threes, as in 1,000.5; for a decimal comma pass "
                                   "--decimal-comma)";
  fail_csv(t.path, row.line, "column '" + column_name + "': bad number '" + row.fields[col] + "'" + hint);
}


bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The field index of a --map value: a 1-based position, or a header name.
std::size_t mapped_column(const detail::CsvTable& t, const std::string& name, const std::string& spec,
                          std::size_t width) {
  const std::size_t line = t.has_header ? t.header_line : t.rows.front().line;
  const std::string flag = "--map " + name + "=" + spec;
  if (all_digits(spec)) {
    const unsigned long long pos = spec.size() > 6 ? 0 : std::stoull(spec);
    if (pos < 1 || pos > width)
      fail_csv(t.path, line, flag + ": position out of range (the file has " + std::to_string(width) + " columns)");
    return static_cast<std::size_t>(pos - 1);
  }
  if (!t.has_header)
    fail_csv(t.path, line, flag + ": the file has no header line, so columns are mapped by position (e.g. " +
                               name + "=1)");
  std::string lowered = spec;
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::size_t i = 0; i < t.header.size(); ++i)
    if (t.header[i] == lowered) return i;
  fail_csv(t.path, line, flag + ": no column '" + spec + "' (found: " + join(t.header) + ")");
}

// Which field holds each of time, open..volume (volume may be absent).
struct ColumnLayout {
  std::size_t width = 0;
  std::size_t time = 0;
  std::map<std::string, std::size_t> bar;  // open..volume -> field index
};

ColumnLayout column_layout(const detail::CsvTable& t, const std::map<std::string, std::string>& mapping) {
  ColumnLayout layout;
  const auto& names = required_bar_columns();
  if (t.has_header) {
    check_unique_header(t);
    layout.width = t.header.size();
    for (const auto& name : names)
      for (std::size_t i = 0; i < t.header.size(); ++i)
        if (bar_column_named(t.header[i]) == name) layout.bar[name] = i;
  } else {
    layout.width = t.rows.front().fields.size();
    const bool default_layout = layout.width == 5 || layout.width == 6;
    if (default_layout)
      for (std::size_t i = 0; i + 1 < layout.width; ++i) layout.bar[names[i]] = i + 1;
    else if (mapping.empty())
      fail_csv(t.path, t.rows.front().line,
               "no header and " + std::to_string(layout.width) +
                   " fields; expected time,open,high,low,close[,volume], a header line, or --map with positions "
                   "(exchange klines: --map time=1,open=2,high=3,low=4,close=5,volume=6)");
  }
  for (const auto& [name, spec] : mapping)
    if (name != "time") layout.bar[name] = mapped_column(t, name, spec, layout.width);
  auto time_spec = mapping.find("time");
  if (time_spec != mapping.end()) layout.time = mapped_column(t, "time", time_spec->second, layout.width);
  else if (t.has_header) layout.time = time_column(t);
  for (const auto& name : price_columns())
    if (!layout.bar.count(name))
      fail_csv(t.path, t.has_header ? t.header_line : t.rows.front().line,
               "missing column '" + name + "' (found: " + (t.has_header ? join(t.header) : "no header") +
                   "; map one with --map " + name + "=COLUMN)");
  return layout;
}

SymbolBars read_ohlcv(const std::string& symbol, const std::string& path, const CsvImportOptions& options,
                      const TimeZone* zone, CsvImportNotes* notes) {
  const detail::CsvTable t = detail::read_csv_table(path, options.dialect);
  const ColumnLayout layout = column_layout(t, options.columns);
  SymbolBars out;
  out.symbol = symbol;
  if (notes) {
    std::vector<std::string> ignored;
    for (std::size_t i = 0; i < layout.width; ++i) {
      bool used = i == layout.time;
      for (const auto& [name, col] : layout.bar) used = used || col == i;
      if (!used) ignored.push_back(t.has_header ? t.header[i] : "#" + std::to_string(i + 1));
    }
    if (!ignored.empty()) notes->lines.push_back(path + ": ignored columns: " + join(ignored));
    if (!layout.bar.count("volume")) notes->lines.push_back(path + ": no volume column; volume is NaN for " + symbol);
  }
  for (const auto& name : required_bar_columns()) out.columns[name].reserve(t.rows.size());
  std::vector<std::size_t> lines;
  for (const auto& row : t.rows) {
    check_width(t, row, layout.width);
    out.times.push_back(parse_row_time(t, row, layout.time, zone));
    lines.push_back(row.line);
    check_last_row_in_order(t, out.times, lines);
    for (const auto& name : required_bar_columns()) {
      auto it = layout.bar.find(name);
      out.columns[name].push_back(it == layout.bar.end() ? std::numeric_limits<double>::quiet_NaN()
                                                         : parse_field(t, row, it->second, name, options.dialect));
    }
  }
  return out;
}

// A (time, value) CSV: funding rates or an exo series.
struct TimeValue {
  ExoSeries series;
  std::vector<std::size_t> lines;
  std::string path;
};

TimeValue read_time_value(const std::string& path, const char* value_name, const CsvDialect& dialect,
                          const TimeZone* zone) {
  const detail::CsvTable t = detail::read_csv_table(path, dialect);
  std::size_t tcol = 0;
  std::string vname = value_name;
  if (t.has_header) {
    check_unique_header(t);
    if (t.header.size() != 2)
      fail_csv(t.path, t.header_line,
               "expected 2 columns (time, " + vname + "), found " + std::to_string(t.header.size()));
    tcol = time_column(t);
    vname = t.header[1 - tcol];
  }
  TimeValue out;
  out.path = path;
  for (const auto& row : t.rows) {
    check_width(t, row, 2);
    out.series.timestamps.push_back(parse_row_time(t, row, tcol, zone));
    out.lines.push_back(row.line);
    check_last_row_in_order(t, out.series.timestamps, out.lines);
    out.series.values.push_back(parse_field(t, row, 1 - tcol, vname, dialect));
  }
  return out;
}

std::string file_stem(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

}  // namespace

MarketData import_csv_raw(const CsvImportOptions& options, CsvImportNotes* notes) {
  if (options.bars.empty()) throw Error(ErrorCategory::config, "import: no bar CSV given");
  for (const auto& [name, spec] : options.columns) {
    const auto& names = required_bar_columns();
    if (name != "time" && std::find(names.begin(), names.end(), name) == names.end())
      throw Error(ErrorCategory::config,
                  "import: --map " + name + "=" + spec + ": unknown column; expected time, open, high, low, close or volume");
    if (spec.empty()) throw Error(ErrorCategory::config, "import: --map " + name + "=: empty column");
  }
  const std::unique_ptr<TimeZone> zone =
      options.timezone.empty() ? nullptr : std::make_unique<TimeZone>(options.timezone, "--timezone");
  std::vector<SymbolBars> per_symbol;
  std::set<std::string> names;
  for (const auto& f : options.bars) {
    const std::string symbol = f.symbol.empty() ? file_stem(f.path) : f.symbol;
    if (symbol.empty()) throw Error(ErrorCategory::config, "import: empty symbol name for '" + f.path + "'");
    if (!names.insert(symbol).second)
      throw Error(ErrorCategory::config, "import: symbol '" + symbol + "' given twice (name files with SYMBOL=path)");
    per_symbol.push_back(read_ohlcv(symbol, f.path, options, zone.get(), notes));
  }

  MarketData data;
  BarData& bars = data.bars;
  bars = merge_on_time_union(per_symbol);
  const std::size_t n = bars.timestamps.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();

  if (!options.venues.empty()) {
    for (const auto& [symbol, venue] : options.venues)
      if (!names.count(symbol))
        throw Error(ErrorCategory::config, "import: --venue for '" + symbol + "', which is not imported");
    for (const auto& symbol : bars.symbols) {
      auto it = options.venues.find(symbol);
      if (it == options.venues.end())
        throw Error(ErrorCategory::config,
                    "import: venues must be given for all symbols or none; missing for '" + symbol + "'");
      bars.venues.push_back(it->second);
    }
  }

  if (!options.funding.empty()) {
    auto& funding = bars.columns["funding_rate"];
    funding.assign(per_symbol.size() * n, nan);
    for (const auto& [symbol, path] : options.funding) {
      const long s = bars.symbol_index(symbol);
      if (s < 0) throw Error(ErrorCategory::config, "import: --funding for '" + symbol + "', which is not imported");
      const TimeValue tv = read_time_value(path, "rate", options.dialect, zone.get());
      for (std::size_t i = 0; i < tv.series.timestamps.size(); ++i) {
        auto it = std::lower_bound(bars.timestamps.begin(), bars.timestamps.end(), tv.series.timestamps[i]);
        if (it == bars.timestamps.end() || *it != tv.series.timestamps[i])
          fail_csv(path, tv.lines[i],
                   "funding time " + format_iso8601_utc(tv.series.timestamps[i]) +
                       " is not a bar time (funding rates are placed on the bar with the same timestamp)");
        funding[static_cast<std::size_t>(s) * n + static_cast<std::size_t>(it - bars.timestamps.begin())] =
            tv.series.values[i];
      }
    }
  }

  for (const auto& [name, path] : options.exo) {
    if (name.empty() || name.find('/') != std::string::npos)
      throw Error(ErrorCategory::config, "import: invalid exo name '" + name + "'");
    data.exo.emplace(name, read_time_value(path, "value", options.dialect, zone.get()).series);
  }
  validate_market_data(bars, data.exo, "import");
  return data;
}

BarData import_csv(const CsvImportOptions& options, CsvImportNotes* notes) {
  MarketData data = import_csv_raw(options, notes);
  for (const auto& [name, series] : data.exo) data.bars.exo[name] = asof_join(data.bars.timestamps, series);
  return std::move(data.bars);
}

}  // namespace kbt
