// `kbt data import | synth | inspect`: market data in, validated, and out as
// the documented HDF5 layout (docs/data-format.md).

#include <CLI/CLI.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <cstdio>
#include <memory>

#include "cli/comma_list.hpp"
#include "cli/commands.hpp"

namespace kbt::cli {
namespace {

// "NAME=value" -> (NAME, value); `option` names the flag in errors.
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw Error(ErrorCategory::config,
                std::string(option) + " '" + text + "': expected NAME=VALUE (e.g. " + option +
                    (std::string(option) == "--map" ? " time=open_time" : " BTC=btc.csv") + ")");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::map<std::string, std::string> assignments(const std::vector<std::string>& items, const char* option) {
  std::map<std::string, std::string> out;
  for (const auto& item : items) {
    auto [name, value] = split_assignment(item, option);
    if (!out.emplace(name, value).second)
      throw Error(ErrorCategory::config, std::string(option) + ": '" + name + "' given twice");
  }
  return out;
}

std::int64_t duration_option(const std::string& text, const char* option) {
  auto ns = parse_duration_ns(text);
  if (!ns)
    throw Error(ErrorCategory::config, std::string(option) + " '" + text +
                                           "': expected a count and a unit: 30s, 1m, 5m, 15m, 1h, 4h, 1d, 1w");
  return *ns;
}

void print_written(const std::string& path, const MarketData& data) {
  const BarData& b = data.bars;
  std::printf("wrote %s: %zu symbol%s x %zu bars, %s .. %s%s, %zu exo series\n", path.c_str(), b.n_symbols(),
              b.n_symbols() == 1 ? "" : "s", b.n_bars(), format_iso8601_utc(b.timestamps.front()).c_str(),
              format_iso8601_utc(b.timestamps.back()).c_str(), b.has_column("funding_rate") ? ", funding" : "",
              data.exo.size());
}

struct ImportArgs {
  std::string out;
  std::vector<std::string> symbols, csvs, funding, exo, venues, map;
  std::string delimiter, header = "auto", timezone;
  bool decimal_comma = false;
};

struct SynthArgs {
  std::string out;
  std::size_t n_symbols = 3;
  std::size_t n_bars = 1000;
  std::string freq = "1h";
  std::uint64_t seed = 1;
  std::string start = "2021-01-01";
  bool funding = false;
  std::string funding_interval = "8h";
  std::vector<std::string> exo;
  std::string exo_interval = "1d";
  std::string names, venues;
  double start_price = 100.0;
  double listings = 0.0;
};

void add_import(CLI::App& data) {
  auto args = std::make_shared<ImportArgs>();
  auto* cmd = data.add_subcommand("import", "Convert per-symbol OHLCV CSV files to a kbt HDF5 data file");
  cmd->add_option("--out,-o", args->out, "HDF5 file to write (written atomically)")->required();
  cmd->add_option("--symbol", args->symbols, "NAME=path.csv: bars of symbol NAME (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("csv", args->csvs, "CSV files; the symbol is the file name without extension");
  cmd->add_option("--funding", args->funding, "NAME=path.csv: funding rates (time,rate) of symbol NAME")
      ->allow_extra_args(false);
  cmd->add_option("--exo", args->exo, "NAME=path.csv: exogenous series NAME (time,value)")
      ->allow_extra_args(false);
  cmd->add_option("--venue", args->venues, "NAME=venue: venue of symbol NAME (give all or none)")
      ->allow_extra_args(false);
  cmd->add_option("--map", args->map,
                  "COLUMN=NAME or COLUMN=POSITION: where time/open/high/low/close/volume are in the bar files "
                  "(repeatable or comma-separated: --map time=open_time,close=c)")
      ->allow_extra_args(false);
  cmd->add_option("--delimiter", args->delimiter,
                  "field delimiter: one character or tab, comma, semicolon, pipe (default: detected per file)");
  cmd->add_option("--header", args->header, "auto (detected per file), yes or no")->capture_default_str();
  cmd->add_flag("--decimal-comma", args->decimal_comma, "numbers are written 1.000,5 (',' is the decimal mark)");
  cmd->add_option("--timezone", args->timezone,
                  "IANA zone of times written without Z or an offset (America/New_York); default UTC");
  cmd->footer(
      "One CSV per symbol. The header line is optional; column names are case-insensitive:\n"
      "time|timestamp|date|datetime (or an unnamed first column), open, high, low, close,\n"
      "volume (optional, NaN when absent); other columns are ignored and listed. Without a\n"
      "header the columns are time,open,high,low,close[,volume], or name them by position\n"
      "with --map. Fields may be quoted (\"1,000\"); ',' ';' tab and '|' delimiters are\n"
      "detected. Times: ISO-8601 (2021-03-04,\n"
      "2021-03-04 05:06:07, T separator, fractional seconds, Z or +HH:MM offset -> UTC) or\n"
      "epoch numbers (seconds < 1e11 <= ms < 1e14 <= us < 1e17 <= ns). Rows must be strictly\n"
      "increasing in time. Symbols are aligned on the union of their times; a missing bar is\n"
      "NaN. Funding times must be bar times; exo series are stored raw and ASOF-joined on load.\n\n"
      "Example:\n"
      "  kbt data import --out fx.h5 --symbol EURUSD=EURUSD.csv --venue EURUSD=oanda\n"
      "  kbt data import --out stocks.h5 GOOG.csv AAPL.csv\n"
      "  kbt data import -o btc.h5 --symbol BTC=BTCUSDT-1h-2024-01.csv \\\n"
      "      --map time=1,open=2,high=3,low=4,close=5,volume=6      # a headerless kline dump\n"
      "See docs/data-format.md.");
  cmd->callback([args] {
    CsvImportOptions options;
    for (const auto& item : args->symbols) {
      auto [name, path] = split_assignment(item, "--symbol");
      options.bars.push_back({name, path});
    }
    for (const auto& path : args->csvs) options.bars.push_back({"", path});
    if (options.bars.empty())
      throw Error(ErrorCategory::config, "data import: no CSV given (use --symbol NAME=path.csv or list files)");
    options.funding = assignments(args->funding, "--funding");
    options.exo = assignments(args->exo, "--exo");
    options.venues = assignments(args->venues, "--venue");
    std::vector<std::string> map_items;
    for (const auto& item : args->map)
      for (const auto& part : split_list(item)) map_items.push_back(part);
    options.columns = assignments(map_items, "--map");
    if (!args->delimiter.empty()) options.dialect.delimiter = parse_csv_delimiter(args->delimiter, "--delimiter");
    options.dialect.header = parse_csv_header(args->header, "--header");
    options.dialect.decimal_comma = args->decimal_comma;
    options.timezone = args->timezone;
    CsvImportNotes notes;
    const MarketData data = import_csv_raw(options, &notes);
    write_bars_hdf5(data.bars, data.exo, args->out);
    for (const auto& note : notes.lines) std::printf("note: %s\n", note.c_str());
    print_written(args->out, data);
  });
}

void add_synth(CLI::App& data) {
  auto args = std::make_shared<SynthArgs>();
  auto* cmd = data.add_subcommand("synth", "Generate deterministic synthetic OHLCV data (regime-switching GBM)");
  cmd->add_option("--out,-o", args->out, "HDF5 file to write (written atomically)")->required();
  cmd->add_option("--symbols", args->n_symbols, "number of symbols (named AAA, BBB, ... unless --names)")
      ->capture_default_str();
  cmd->add_option("--bars", args->n_bars, "number of bars")->capture_default_str();
  cmd->add_option("--freq", args->freq, "bar spacing: 1s, 1m, 5m, 15m, 1h, 4h, 1d, 1w ... (m = minute)")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "random seed; same seed and options give the same bytes")
      ->capture_default_str();
  cmd->add_option("--start", args->start, "time of the first bar, ISO-8601 (UTC unless an offset is given)")
      ->capture_default_str();
  cmd->add_flag("--funding", args->funding, "add /bars/funding_rate (NaN except at funding times)");
  cmd->add_option("--funding-interval", args->funding_interval,
                  "funding period; a bar gets a rate when its interval holds a multiple of it since epoch")
      ->capture_default_str();
  cmd->add_option("--exo", args->exo, "add an exogenous random-walk series with this name (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--exo-interval", args->exo_interval, "sampling period of the exo series")
      ->capture_default_str();
  cmd->add_option("--names", args->names, "comma-separated symbol names (one per symbol)");
  cmd->add_option("--venues", args->venues,
                  "comma-separated venues, stored in /venues: one per symbol, or fewer assigned in turn");
  cmd->add_option("--start-price", args->start_price, "price scale; each symbol starts in [0.5, 1.5) x this")
      ->capture_default_str();
  cmd->add_option("--listings", args->listings,
                  "fraction of symbols listed after the first bar and, independently, delisted before the last "
                  "(NaN outside their life)")
      ->capture_default_str();
  cmd->footer(
      "Each symbol follows a GBM whose drift and volatility switch between three regimes\n"
      "(calm, trending, turbulent) by a Markov chain. OHLC are consistent, volume > 0.\n"
      "The PRNG (xoshiro256**) and the math are kbt's own, so output is identical on\n"
      "every platform. The model is in docs/data-format.md.\n\n"
      "Example (this made data/sample.h5):\n"
      "  kbt data synth --out data/sample.h5 --symbols 3 --bars 20000 --freq 1h --seed 42 \\\n"
      "      --start 2021-01-01 --funding --exo hashrate --venues binance,binance,okx");
  cmd->callback([args] {
    SynthOptions o;
    o.n_symbols = args->n_symbols;
    o.n_bars = args->n_bars;
    o.bar_ns = duration_option(args->freq, "--freq");
    o.seed = args->seed;
    auto start = parse_iso8601_ns(args->start);
    if (!start)
      throw Error(ErrorCategory::config, "--start '" + args->start + "': expected ISO-8601, e.g. 2021-01-01T00:00:00Z");
    o.start_ns = *start;
    o.funding = args->funding;
    o.funding_interval_ns = duration_option(args->funding_interval, "--funding-interval");
    o.exo_names = args->exo;
    o.exo_interval_ns = duration_option(args->exo_interval, "--exo-interval");
    o.symbols = split_list(args->names);
    // Fewer venues than symbols are assigned in turn (a universe on two venues);
    // more are refused by synth_market_data, which names both counts.
    const std::vector<std::string> venues = split_list(args->venues);
    if (venues.size() > o.n_symbols) o.venues = venues;
    else
      for (std::size_t s = 0; !venues.empty() && s < o.n_symbols; ++s) o.venues.push_back(venues[s % venues.size()]);
    o.start_price = args->start_price;
    o.listings = args->listings;
    const MarketData data = synth_market_data(o);
    write_bars_hdf5(data.bars, data.exo, args->out);
    print_written(args->out, data);
  });
}

void add_inspect(CLI::App& data) {
  auto path = std::make_shared<std::string>();
  auto follow = std::make_shared<bool>(false);
  auto* cmd = data.add_subcommand("inspect", "Validate a kbt HDF5 data file and summarize it");
  cmd->add_option("file", *path, "HDF5 data file")->required();
  cmd->add_flag("--follow-external", *follow,
                "Read HDF5 external links and virtual datasets (values in other files); refused by default");
  cmd->footer(
      "Prints symbols and venues, bar count, date range (UTC), frequency (median bar\n"
      "spacing), columns, NaN counts per column and symbol, and each exo series with its\n"
      "coverage of the bar grid after the ASOF join. Exits non-zero with one error line\n"
      "naming the dataset when the file violates the layout (docs/data-format.md).\n\n"
      "Example:\n"
      "  kbt data inspect data/sample.h5");
  cmd->callback([path, follow] {
    std::fputs(format_summary(inspect_bars(*path, *follow ? ExternalData::follow : ExternalData::refuse)).c_str(), stdout);
  });
}

}  // namespace

void add_data_command(CLI::App& app) {
  auto* data = app.add_subcommand("data", "Import, generate and inspect market data files");
  data->require_subcommand(1);
  add_import(*data);
  add_synth(*data);
  add_inspect(*data);
}

}  // namespace kbt::cli
