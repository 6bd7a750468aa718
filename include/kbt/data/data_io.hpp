#pragma once
// The data layer (docs/data-format.md): market data in from HDF5 or CSV, or generated;
// validated on the way in; written back in the documented HDF5 layout.
// The layout and every validation rule are in docs/data-format.md.
//
// Every function throws kbt::Error on bad input:
//   ErrorCategory::io          file missing, unreadable or unwritable
//   ErrorCategory::data_format content violates the layout; the message names
//                              the file and the dataset (HDF5) or 1-based line (CSV)
//   ErrorCategory::config      a bad option value (synth parameters, subset)

#include <kbt/data/bar_data.hpp>
#include <kbt/data/csv_dialect.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/data/external_data.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kbt {

// One exogenous series on its own time axis (strictly increasing, ns UTC).
struct ExoSeries {
  std::vector<std::int64_t> timestamps;
  std::vector<double> values;
};

// Bars plus exogenous series in their raw (un-joined) form: what a file holds.
// `bars.exo` is left empty; load_bars_hdf5 fills it by asof_join.
struct MarketData {
  BarData bars;
  std::map<std::string, ExoSeries> exo;
};

// ---------------------------------------------------------------------------
// ASOF join

// For every grid time t, the value of the last series point with timestamp <= t;
// NaN where t is before the first point (or the series is empty). `grid` and
// `series.timestamps` must both be strictly increasing (not re-checked here).
// Example: series {(10, 1.0), (20, 2.0)}, grid {5, 10, 15, 25} -> {NaN, 1, 1, 2}.
std::vector<double> asof_join(const std::vector<std::int64_t>& grid, const ExoSeries& series);

// ---------------------------------------------------------------------------
// HDF5

// Where the HDF5 readers below run libhdf5 on a file. libhdf5 1.10 can crash
// (SIGSEGV, SIGFPE) on some corrupt files before kbt sees any value
// (docs/testing.md); in a child process that crash becomes an ordinary
// kbt::Error(data_format) naming the file, and the caller's process - a sweep
// about to run for hours, or the HPC code linking kbt - survives it.
enum class Hdf5ReadIsolation {
  child_process,  // default (POSIX): read in a forked child, results piped back
  in_process      // read here: for debuggers, fuzzing, or where fork is unwelcome
};
// The initial value is child_process, or in_process when the environment has
// KBT_HDF5_IN_PROCESS=1. Thread-safe; applies to reads started afterwards.
void set_hdf5_read_isolation(Hdf5ReadIsolation isolation);
Hdf5ReadIsolation hdf5_read_isolation();

// Loads and validates a file in the docs/data-format.md layout. `symbols_subset` (names,
// no duplicates) selects and orders the symbols; empty = all, in file order.
// Exo series are ASOF-joined onto the bar grid into BarData::exo.
// External links and virtual datasets are refused unless `external` is follow.
// A data file as results files and profiles name it: its absolute path, or
// "(bars in memory)" for bars a caller handed over (no path).
std::string data_path_for_results(const std::string& path);

BarData load_bars_hdf5(const std::string& path,
                       const std::vector<std::string>& symbols_subset = {},
                       ExternalData external = ExternalData::refuse);

// A config's or a command's data file: a `.csv` file (any case) is imported on
// the fly as one symbol named after the file's stem (docs/config.md `data`,
// the rules of docs/data-format.md "CSV import"), anything else is read by
// load_bars_hdf5. `symbols_subset` must then name that one symbol or nothing;
// `symbols_where` (e.g. a config's "x.yaml:3:10") prefixes that error.
BarData load_bars(const std::string& path, const std::vector<std::string>& symbols_subset = {},
                  ExternalData external = ExternalData::refuse, const std::string& symbols_where = "");

// Same validation, but returns the exo series un-joined (bars.exo empty).
MarketData read_market_data_hdf5(const std::string& path,
                                 const std::vector<std::string>& symbols_subset = {},
                                 ExternalData external = ExternalData::refuse);

// Only the exo series of a file (validated), un-joined.
std::map<std::string, ExoSeries> read_exo_raw(const std::string& path);

// Writes `bars` (its `exo` member is ignored) and the raw `exo` series in the
// docs/data-format.md layout. Validates first (same rules as loading). The file appears at
// `path` only when complete (temp file + rename). Equal content gives equal
// bytes with the same HDF5 library version.
void write_bars_hdf5(const BarData& bars, const std::map<std::string, ExoSeries>& exo,
                     const std::string& path);

// The checks load_bars_hdf5 applies, on data already in memory; `origin`
// prefixes messages (e.g. a file name). Throws kbt::Error(data_format).
void validate_market_data(const BarData& bars, const std::map<std::string, ExoSeries>& exo,
                          const std::string& origin);

// ---------------------------------------------------------------------------
// CSV import

struct CsvImportOptions {
  struct SymbolFile {
    std::string symbol;  // empty -> the file stem ("data/GOOG.csv" -> "GOOG")
    std::string path;
  };
  std::vector<SymbolFile> bars;                // one OHLCV file per symbol
  std::map<std::string, std::string> funding;  // symbol -> CSV of (time, rate)
  std::map<std::string, std::string> exo;      // exo name -> CSV of (time, value)
  std::map<std::string, std::string> venues;   // symbol -> venue (all or none)
  CsvDialect dialect;                          // for every file read
  // Bar-file columns by kbt name (time, open, high, low, close, volume) ->
  // the file's column name, or its 1-based position ("time=open_time",
  // "close=5"). Unmapped names are looked up as usual.
  std::map<std::string, std::string> columns;
  // IANA time zone of the times written without Z or an offset (every file);
  // empty: they are UTC. Epoch numbers and zoned times are UTC regardless.
  std::string timezone;
};

// What import noticed but did not reject (ignored columns, absent volume).
struct CsvImportNotes {
  std::vector<std::string> lines;
};

// Reads the CSVs, aligns all symbols on the union of their timestamps (NaN
// where a symbol has no bar) and returns raw exo series. Rules: see
// docs/data-format.md "CSV import".
MarketData import_csv_raw(const CsvImportOptions& options, CsvImportNotes* notes = nullptr);

// import_csv_raw with the exo series ASOF-joined into BarData::exo.
BarData import_csv(const CsvImportOptions& options, CsvImportNotes* notes = nullptr);

// Writes one symbol's bars as CSV: header "timestamp,open,high,low,close,volume"
// (+ ",funding_rate" when present), ISO-8601 UTC times, shortest round-trip
// numbers, "nan" for NaN. Atomic like write_bars_hdf5.
void write_bars_csv(const BarData& bars, const std::string& symbol, const std::string& path);

// ---------------------------------------------------------------------------
// Synthetic data

struct SynthOptions {
  std::size_t n_symbols = 3;
  std::size_t n_bars = 1000;
  std::int64_t bar_ns = 3600LL * 1000000000LL;   // bar spacing
  std::uint64_t seed = 1;
  std::int64_t start_ns = 1609459200LL * 1000000000LL;  // 2021-01-01T00:00:00Z
  std::vector<std::string> symbols;  // names; empty -> AAA, BBB, ... (see synth_symbol_name)
  std::vector<std::string> venues;   // empty or one per symbol
  bool funding = false;              // add /bars/funding_rate
  std::int64_t funding_interval_ns = 8LL * 3600LL * 1000000000LL;
  std::vector<std::string> exo_names;                        // one random walk each
  std::int64_t exo_interval_ns = 24LL * 3600LL * 1000000000LL;  // exo sampling period
  double start_price = 100.0;
  // Fraction of symbols listed after the first bar, and independently of
  // symbols delisted before the last: NaN in every column outside their life
  // (docs/data-format.md "Listings"). 0: every symbol trades every bar.
  double listings = 0.0;
};

// Name of the i-th default synthetic symbol: AAA, BBB, ..., ZZZ for i < 26,
// then S0026, S0027, ...
std::string synth_symbol_name(std::size_t i);

// Deterministic regime-switching GBM (model in docs/data-format.md): the same
// options give the same bits on every platform. Throws kbt::Error(config) on
// bad options (zero symbols/bars, non-positive spacing, ...).
MarketData synth_market_data(const SynthOptions& options);

// synth_market_data with the exo series ASOF-joined into BarData::exo.
BarData synth_bars(const SynthOptions& options);

// ---------------------------------------------------------------------------
// Inspection

struct ExoCoverage {
  std::string name;
  std::size_t points = 0;            // raw series length
  std::int64_t first_ns = 0;         // first/last raw timestamp (0 when empty)
  std::int64_t last_ns = 0;
  std::size_t bars_covered = 0;      // bars with a non-NaN joined value
};

struct DataSummary {
  std::string path;                   // empty when summarizing memory
  std::vector<std::string> symbols;
  std::vector<std::string> venues;    // empty when the data has none
  std::size_t n_bars = 0;
  std::int64_t first_ns = 0;
  std::int64_t last_ns = 0;
  std::int64_t median_spacing_ns = 0;  // 0 with fewer than 2 bars
  std::vector<std::string> columns;    // per-symbol columns, layout order
  // column -> NaN count per symbol (same order as `symbols`)
  std::map<std::string, std::vector<std::size_t>> nan_counts;
  std::vector<ExoCoverage> exo;
};

DataSummary summarize_market_data(const MarketData& data);
// Loads (fully validated) and summarizes a file.
DataSummary inspect_bars(const std::string& path, ExternalData external = ExternalData::refuse);
// Human-readable multi-line report (what `kbt data inspect` prints).
std::string format_summary(const DataSummary& summary);

}  // namespace kbt
