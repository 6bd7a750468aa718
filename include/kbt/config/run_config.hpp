#pragma once
// A run configuration (docs/config.md), as plain data.
// Loading and validation live in config_loader.hpp.

#include <kbt/core/error.hpp>
#include <kbt/core/source_text.hpp>
#include <kbt/data/external_data.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

// One swept parameter. `values` holds the expanded, ordered values of the axis.
struct ParamSpec {
  enum class Kind { range, values, linspace, logspace };
  std::string name;
  Kind kind = Kind::values;
  std::vector<double> values;  // expanded axis, in order
  bool is_integer = false;     // every value is an integer (usable as a window)
  SourceText origin;           // where the param was declared
};

struct ScanSpec {
  std::string name;
  // Ordered (name, expression) lists, in the order written in the YAML.
  std::vector<std::pair<std::string, SourceText>> inputs;
  std::vector<std::pair<std::string, SourceText>> init;
  std::vector<std::pair<std::string, SourceText>> update;
  std::vector<std::pair<std::string, SourceText>> outputs;
  SourceText origin;
};

// A user-defined function (`strategy.functions`, docs/language.md "User
// functions"): `name(a, b): body`, expanded where it is called.
struct FunctionSpec {
  std::string name;
  std::vector<std::string> params;  // formal parameter names, in order
  SourceText body;
  SourceText header;  // where `name(a, b)` is written
};

struct StrategySpec {
  std::vector<ParamSpec> params;                            // declaration order
  std::vector<FunctionSpec> functions;                      // declaration order
  std::vector<SourceText> constraints;
  std::vector<ScanSpec> scans;                              // declaration order
  std::vector<std::pair<std::string, SourceText>> signals;  // declaration order
  // Exactly one form: `position`, or any of the entry/exit expressions.
  std::optional<SourceText> position;
  std::optional<SourceText> long_entry, long_exit, short_entry, short_exit;
};

// Simulation settings that name a strategy param instead of giving a number:
// they take each combo's value of that param (docs/semantics.md "Swept
// settings"). Empty: not swept.
struct SweptSettings {
  std::string stop_loss, take_profit, trailing_stop, fee_bps, slippage_bps, max_gross_leverage;
  bool any() const {
    return !stop_loss.empty() || !take_profit.empty() || !trailing_stop.empty() || !fee_bps.empty() ||
           !slippage_bps.empty() || !max_gross_leverage.empty();
  }
};

struct SimulationSettings {
  enum class Fill { close, next_open };
  enum class SltpPriority { stop_first, target_first };
  enum class Weighting { raw, equal };

  double initial_capital = 10000.0;
  Fill fill = Fill::close;
  double fee_bps = 0.0;                            // used when fee_bps_by_venue is empty
  std::map<std::string, double> fee_bps_by_venue;  // `fee_bps: {venue: bps}` form
  double slippage_bps = 0.0;
  double borrow_rate = 0.0;  // annual, on short notional
  std::optional<double> stop_loss, take_profit, trailing_stop;  // fractions
  SltpPriority sltp_priority = SltpPriority::stop_first;
  double max_gross_leverage = 1.0;
  Weighting weighting = Weighting::raw;
  // Scoring window start: a bar index or a timestamp (ns), resolved against the data.
  std::optional<std::int64_t> score_start_bar;
  std::optional<std::int64_t> score_start_time_ns;
  // The end of the scoring window (exclusive): a bar index or a timestamp
  // (the window ends before the first bar at or after it); absent: the data's end.
  std::optional<std::int64_t> score_end_bar;
  std::optional<std::int64_t> score_end_time_ns;
  std::optional<double> periods_per_year;  // inferred from bar spacing when absent
  SweptSettings swept;  // settings taken from a param per combo (the number above is then unused)
};

struct Objective {
  std::string metric = "sharpe";
  bool maximize = true;
  double min_trades = 0;
};

struct SweepSettings {
  std::string device = "auto";  // auto | reference | serial | openmp | cuda
  std::string precision = "fp64";  // fp64 | fp32
  Objective objective;
  std::int64_t top_k = 1000;
  // Metrics computed for every combo besides what the run needs (the
  // objective, n_trades); every metric when `all_metrics`. The best rows
  // always get all 21 (docs/metrics.md "Metric sets").
  std::vector<std::string> metrics;
  bool all_metrics = false;
  // Limits, checked before any work. max_combos bounds the grid before constraints.
  std::optional<double> memory_budget_mb;  // device memory a sweep may use; absent = auto
  std::uint64_t max_combos = 100000000;
  // Combos per checkpoint chunk (docs/sweep.md "Checkpoint chunks"); 0 = auto,
  // resolved by resolve_checkpoint_combos (sweep.hpp).
  std::uint64_t checkpoint_combos = 0;
};

struct VerifySettings {
  std::optional<std::int64_t> top_n;  // absent (`auto`): automatic_verify_count of the rows (docs/verify.md)
  int threads = 0;  // 0 = all cores
  std::optional<std::int64_t> score_start_bar, score_start_time_ns;
  std::optional<std::int64_t> score_end_bar, score_end_time_ns;
};

// A window length of the walk-forward: bars, or a span of time
// (parse_calendar_span: "90d", "6mo", "2y").
struct WindowLength {
  std::int64_t bars = 0;  // > 0: this many bars
  std::string span;       // else this span of time
};

// validation.walk_forward (docs/validation.md "Walk-forward").
struct WalkForwardSettings {
  WindowLength train, test, step;
  bool anchored = false;      // every train window starts at the scoring window's start
  std::int64_t purge = 0;     // bars between a train window's end and its test window
  std::int64_t embargo = 0;   // bars after a test window that no later train window starts in
};

// The validation stage (docs/validation.md): is the winner real?
struct ValidationSettings {
  bool enabled = false;  // the section is present
  // Train/test: the last part of the scoring window is held out; the sweep
  // ranks on the rest. A fraction in (0, 1), a number of bars, or the
  // timestamp where the test window starts (at most one).
  std::optional<double> holdout_fraction;
  std::optional<std::int64_t> holdout_bars, holdout_time_ns;
  std::int64_t top_k = 100;       // candidates (the best by the objective) the stage studies
  std::string period = "day";     // per-period returns: day | week | month, or `period_bars`
  std::int64_t period_bars = 0;   // > 0: periods of this many bars
  std::int64_t pbo_blocks = 16;   // CSCV blocks S (even)
  // PBO's configurations: every combo of the sweep up to this many, else a
  // uniform sample of this many (docs/validation.md "PBO").
  std::int64_t pbo_configs = 10000;
  std::optional<WalkForwardSettings> walk_forward;
  bool has_holdout() const { return holdout_fraction || holdout_bars || holdout_time_ns; }
};

// The `label` section of a labelling job (`job: label`, docs/label.md):
// triple-barrier labels for a grid of barrier settings. Expressions may use
// the section's own functions and signals (kept in RunConfig::strategy) and
// `lead`, which the other jobs refuse.
struct LabelSettings {
  SourceText volatility;             // barrier width per bar, a return fraction
  std::optional<SourceText> side;    // +1 / -1 per bar (meta-labels); absent: every event is long
  std::optional<SourceText> events;  // boolean: the bars that are events; absent: every bar
  // The barrier grid, profit_take slowest, horizon fastest.
  ParamSpec profit_take, stop, horizon;
  std::string device = "auto";  // auto | reference | serial | openmp | cuda
};

// The `simulate` section of an action-driven simulation (`job: simulate`,
// docs/simulate.md): where the actions come from and what to write.
struct SimulateSettings {
  std::string actions_path;               // HDF5 file of actions (resolved like `data`), or
  std::string actions_dataset = "actions";
  std::int64_t random_trials = 0;         // > 0: a random policy of this many trials instead
  std::uint64_t random_seed = 0;
  std::int64_t random_hold = 24;          // bars each random action is held
  std::string kind = "exposure";          // exposure | discrete
  double cash_reserve = 0, spread_bps = 0;
  bool per_bar = false;                   // write equity, units, open PnL, drawdown and rewards per bar
  std::string reward = "log_return";      // log_return | pnl | differential_sharpe
  double eta = 0.01;                      // differential_sharpe's rate
  std::string device = "auto";            // auto | reference | serial | openmp | cuda
};

// What a config asks kbt to do (root key `job`).
enum class Job { sweep, label, simulate };

struct OutputSettings {
  std::string path = "results/run.h5";
  bool csv = true;
  std::vector<std::string> heatmap;  // two param names, or empty
};

struct RunConfig {
  Job job = Job::sweep;
  std::string source_path;  // the YAML file ("<memory>" for in-memory YAML)
  std::string source_yaml;  // the YAML text as read (stored in results)
  std::string data_path;    // resolved relative to the config file's directory
  SourceText data_origin;   // the `data:` value as written, with its position
  std::vector<std::string> symbols;  // optional subset; empty = all
  ExternalData external_data = ExternalData::refuse;  // HDF5 external links / virtual datasets
  StrategySpec strategy;
  SimulationSettings simulation;
  SweepSettings sweep;
  VerifySettings verify;
  ValidationSettings validation;
  OutputSettings output;
  LabelSettings label;        // job: label only
  SimulateSettings simulate;  // job: simulate only

  // Where each key written in the file stands, by dotted name ("data",
  // "simulation.fee_bps", "sweep.objective.metric", ...): the value as written and
  // its file:line:col, so that later stages (data, simulation, output) can point at
  // the config line of a setting they reject. Keys not written are absent.
  std::map<std::string, SourceText> key_origins;

  // "file:line:col" of `key`'s value, or the config file name when it was not written.
  std::string where(const std::string& key) const {
    const auto it = key_origins.find(key);
    return it != key_origins.end() ? it->second.where() : source_path;
  }
  // `e` again, prefixed with where(key): for an error that a later stage finds
  // in a setting without knowing the config (a memory budget, a window).
  Error located(const std::string& key, const Error& e) const {
    return Error(e.category(), where(key) + ": " + e.what());
  }
};

}  // namespace kbt
