// `kbt check CONFIG [--data]`: load and validate a run config and print what it
// asks for. With --data, also load the data, compile the strategy against it and
// count the combos that pass the constraints: everything `kbt run` checks before
// the sweep, without sweeping.

#include <CLI/CLI.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/core/error.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/sweep/strategy_warnings.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/label/label_job.hpp>
#include <kbt/simulate/simulate_job.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/reference/evaluator.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "config/number_text.hpp"

namespace kbt::cli {

namespace {

using detail::format_count;
using detail::format_number;

const char* kind_name(ParamSpec::Kind k) {
  switch (k) {
    case ParamSpec::Kind::range: return "range";
    case ParamSpec::Kind::values: return "values";
    case ParamSpec::Kind::linspace: return "linspace";
    case ParamSpec::Kind::logspace: return "logspace";
  }
  return "values";
}

// "5, 6, 7, ..., 100" (at most 6 values shown).
std::string axis_preview(const std::vector<double>& v) {
  std::string s;
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (n > 6 && i == 3) {
      s += ", ...";
      i = n - 2;
      continue;
    }
    s += (i ? ", " : "") + format_number(v[i]);
  }
  return s;
}

std::string optional_fraction(const std::optional<double>& v) { return v ? format_number(*v) : "none"; }

std::string time_point(const std::optional<std::int64_t>& bar, const std::optional<std::int64_t>& ns,
                       const char* none) {
  if (bar) return "bar " + std::to_string(*bar);
  if (ns) return format_iso8601_utc(*ns);
  return none;
}

// The config, its data (which must exist) and symbols: every job's first lines.
void print_config_head(const RunConfig& c, const char* job) {
  std::error_code ec;
  if (!std::filesystem::exists(c.data_path, ec))
    throw Error(ErrorCategory::io, c.data_origin.where() + ": data file '" + c.data_path + "' does not exist");
  std::printf("config: %s%s\n", c.source_path.c_str(), job);
  std::printf("data: %s\n", c.data_path.c_str());
  std::string symbols;
  for (const auto& x : c.symbols) symbols += (symbols.empty() ? "" : ", ") + x;
  std::printf("symbols: %s\n", symbols.empty() ? "all in the data file" : symbols.c_str());
}

void print_summary(const RunConfig& c) {
  print_config_head(c, "");

  const StrategySpec& st = c.strategy;
  const ParamGrid grid(st.params);
  std::printf("params (%zu):\n", grid.n_params());
  for (const auto& p : st.params)
    std::printf("  %-12s %-8s %6zu value%s %-8s %s\n", p.name.c_str(), kind_name(p.kind), p.values.size(),
                p.values.size() == 1 ? " " : "s", p.is_integer ? "integer" : "real", axis_preview(p.values).c_str());
  std::printf("combos: %s before constraints (%zu constraint%s)\n", format_count(grid.n_combos()).c_str(),
              st.constraints.size(), st.constraints.size() == 1 ? "" : "s");
  for (const auto& x : st.constraints) std::printf("  constraint %s: %s\n", x.where().c_str(), x.text.c_str());
  for (const auto& f : st.functions) {
    std::string formals;
    for (const auto& a : f.params) formals += (formals.empty() ? "" : ", ") + a;
    std::printf("function %s(%s) = %s\n", f.name.c_str(), formals.c_str(), f.body.text.c_str());
  }
  for (const auto& scan : st.scans)
    std::printf("scan %s: %zu input%s, %zu init, %zu update, %zu output%s\n", scan.name.c_str(), scan.inputs.size(),
                scan.inputs.size() == 1 ? "" : "s", scan.init.size(), scan.update.size(), scan.outputs.size(),
                scan.outputs.size() == 1 ? "" : "s");
  for (const auto& [name, expr] : st.signals) std::printf("signal %s = %s\n", name.c_str(), expr.text.c_str());
  if (st.position) std::printf("position = %s\n", st.position->text.c_str());
  const std::pair<const char*, const std::optional<SourceText>*> rules[] = {
      {"long_entry", &st.long_entry}, {"long_exit", &st.long_exit}, {"short_entry", &st.short_entry},
      {"short_exit", &st.short_exit}};
  for (const auto& [name, rule] : rules)
    if (*rule) std::printf("%s = %s\n", name, (*rule)->text.c_str());

  const SimulationSettings& s = c.simulation;
  // A swept setting shows its param: "sl (param)".
  const auto or_param = [](const std::string& param, const std::string& value) {
    return param.empty() ? value : param + " (param)";
  };
  std::string fees = format_number(s.fee_bps);
  if (!s.fee_bps_by_venue.empty()) {
    fees.clear();
    for (const auto& [venue, bps] : s.fee_bps_by_venue) fees += (fees.empty() ? "" : ", ") + venue + " " + format_number(bps);
  }
  std::printf("simulation: initial_capital %s, fill %s, fee_bps %s, slippage_bps %s, borrow_rate %s\n",
              format_number(s.initial_capital).c_str(),
              s.fill == SimulationSettings::Fill::close ? "close" : "next_open", or_param(s.swept.fee_bps, fees).c_str(),
              or_param(s.swept.slippage_bps, format_number(s.slippage_bps)).c_str(), format_number(s.borrow_rate).c_str());
  std::printf("  stop_loss %s, take_profit %s, trailing_stop %s, sltp_priority %s\n",
              or_param(s.swept.stop_loss, optional_fraction(s.stop_loss)).c_str(),
              or_param(s.swept.take_profit, optional_fraction(s.take_profit)).c_str(),
              or_param(s.swept.trailing_stop, optional_fraction(s.trailing_stop)).c_str(),
              s.sltp_priority == SimulationSettings::SltpPriority::stop_first ? "stop_first" : "target_first");
  std::printf("  max_gross_leverage %s, weighting %s, score_start %s, periods_per_year %s\n",
              or_param(s.swept.max_gross_leverage, format_number(s.max_gross_leverage)).c_str(),
              s.weighting == SimulationSettings::Weighting::raw ? "raw" : "equal",
              time_point(s.score_start_bar, s.score_start_time_ns, "first bar").c_str(),
              s.periods_per_year ? format_number(*s.periods_per_year).c_str() : "inferred");

  const SweepSettings& w = c.sweep;
  std::printf("sweep: device %s, precision %s, objective %s %s (min_trades %s), top_k %lld\n", w.device.c_str(),
              w.precision.c_str(), w.objective.maximize ? "max" : "min", w.objective.metric.c_str(),
              format_number(w.objective.min_trades).c_str(), static_cast<long long>(w.top_k));
  std::printf("  max_combos %s, memory_budget_mb %s\n", format_count(w.max_combos).c_str(),
              w.memory_budget_mb ? format_number(*w.memory_budget_mb).c_str() : "auto");
  const VerifySettings& v = c.verify;
  std::printf("verify: top_n %s, threads %s, score_start %s, score_end %s\n",
              v.top_n ? std::to_string(*v.top_n).c_str() : "auto (1% of the rows, 20..1,000)",
              v.threads == 0 ? "all cores" : std::to_string(v.threads).c_str(),
              time_point(v.score_start_bar, v.score_start_time_ns, "as simulation").c_str(),
              time_point(v.score_end_bar, v.score_end_time_ns, "last bar").c_str());
  const OutputSettings& o = c.output;
  std::printf("output: %s, csv %s, heatmap %s\n", o.path.c_str(), o.csv ? "yes" : "no",
              o.heatmap.empty() ? "none" : (o.heatmap[0] + " x " + o.heatmap[1]).c_str());
  std::printf("config OK\n");
}

// Largest grid whose constraints `check --data` evaluates (one call per combo).
constexpr std::uint64_t max_constraint_count = 10000000;

void print_data_line(const BarData& bars) {
  const std::size_t n = bars.n_bars();
  std::string symbols, exo;
  for (const auto& x : bars.symbols) symbols += (symbols.empty() ? "" : ", ") + x;
  for (const auto& kv : bars.exo) exo += (exo.empty() ? "" : ", ") + kv.first;
  std::printf("data: %s bars, %s .. %s, %zu symbol%s (%s), exo: %s\n", format_count(n).c_str(),
              n ? format_iso8601_utc(bars.timestamps.front()).c_str() : "-",
              n ? format_iso8601_utc(bars.timestamps.back()).c_str() : "-", bars.n_symbols(),
              bars.n_symbols() == 1 ? "" : "s", symbols.c_str(), exo.empty() ? "none" : exo.c_str());
}

void check_with_data(const RunConfig& c) {
  const BarData bars = load_run_data(c);
  print_data_line(bars);

  // The same resolution a run does: per-venue fees, the scoring window, periods per year.
  const ResolvedSimulation sim = resolve_simulation(c, bars);
  std::printf("scoring from bar %zu (%s) to bar %zu, %g periods per year (%s)\n", sim.window.begin,
              format_iso8601_utc(bars.timestamps[sim.window.begin]).c_str(), sim.window.end, sim.periods_per_year,
              sim.periods_per_year_source.c_str());
  if (const auto w = annualisation_warning(sim)) std::printf("warning: %s\n", w->c_str());
  if (sim.test_window)
    std::printf("validation: train bars [%zu, %zu), held-out test bars [%zu, %zu)\n", sim.window.begin, sim.window.end,
                sim.test_window->begin, sim.test_window->end);
  if (c.validation.walk_forward) {
    const std::vector<TrainTest> folds = resolve_walk_forward(c, bars);
    std::printf("validation: %zu walk-forward folds, tests from %s to %s\n", folds.size(),
                format_iso8601_utc(bars.timestamps[folds.front().test.begin]).c_str(),
                format_iso8601_utc(bars.timestamps[folds.back().test.end - 1]).c_str());
  }

  const Program program = compile_strategy(c.strategy, schema_of(bars));
  std::printf("strategy: compiled, %zu instructions, %zu hoisted series, %zu scan%s\n", program.code.size(),
              program.hoisted.size(), program.scans.size(), program.scans.size() == 1 ? "" : "s");
  for (const std::string& w : strategy_warnings(program, bars)) std::printf("warning: %s\n", w.c_str());

  const ParamGrid grid(c.strategy.params);
  if (program.constraints.empty()) {
    std::printf("combos: %s (no constraints)\n", format_count(grid.n_combos()).c_str());
  } else if (grid.n_combos() > max_constraint_count) {
    std::printf("combos: %s before constraints (not counted after: more than %s)\n",
                format_count(grid.n_combos()).c_str(), format_count(max_constraint_count).c_str());
  } else {
    const auto kept = filter_combos(grid, [&](const double* v) { return constraints_hold(program, v); });
    std::printf("combos: %s before constraints, %s after\n", format_count(grid.n_combos()).c_str(),
                format_count(kept.size()).c_str());
  }
  std::printf("data and strategy OK\n");
}

// A labelling job (docs/label.md "The label job"): its expressions and barrier grid.
void print_label_summary(const RunConfig& c) {
  print_config_head(c, " (job: label)");
  const LabelSettings& l = c.label;
  for (const auto& [name, expr] : c.strategy.signals) std::printf("signal %s = %s\n", name.c_str(), expr.text.c_str());
  std::printf("volatility = %s\n", l.volatility.text.c_str());
  std::printf("side = %s\n", l.side ? l.side->text.c_str() : "1 (every event long)");
  std::printf("events = %s\n", l.events ? l.events->text.c_str() : "every bar");
  for (const ParamSpec* axis : {&l.profit_take, &l.stop, &l.horizon})
    std::printf("  %-12s %6zu value%s %s\n", axis->name.c_str(), axis->values.size(),
                axis->values.size() == 1 ? " " : "s", axis_preview(axis->values).c_str());
  std::printf("barrier settings: %zu, device %s\n", barrier_grid(l).size(), l.device.c_str());
  std::printf("output: %s, csv %s\n", c.output.path.c_str(), c.output.csv ? "yes" : "no");
  std::printf("config OK\n");
}

void check_label_with_data(const RunConfig& c) {
  const BarData bars = load_run_data(c);
  print_data_line(bars);
  check_label_expressions(c, bars);
  std::printf("label expressions: compiled\n");
  std::printf("data and expressions OK\n");
}

// An action-driven simulation (docs/simulate.md "The simulate job").
void print_simulate_summary(const RunConfig& c) {
  print_config_head(c, " (job: simulate)");
  const SimulateSettings& s = c.simulate;
  if (s.random_trials > 0)
    std::printf("actions: random policy, %lld trials, seed %llu, held %lld bars\n",
                static_cast<long long>(s.random_trials), static_cast<unsigned long long>(s.random_seed),
                static_cast<long long>(s.random_hold));
  else
    std::printf("actions: %s, dataset /%s\n", s.actions_path.c_str(), s.actions_dataset.c_str());
  std::printf("kind %s, cash_reserve %s, spread_bps %s, per_bar %s, reward %s (eta %s), device %s\n", s.kind.c_str(),
              format_number(s.cash_reserve).c_str(), format_number(s.spread_bps).c_str(), s.per_bar ? "yes" : "no",
              s.reward.c_str(), format_number(s.eta).c_str(), s.device.c_str());
  std::printf("output: %s\n", c.output.path.c_str());
  std::printf("config OK\n");
}

void check_simulate_with_data(const RunConfig& c) {
  const BarData bars = load_run_data(c);
  print_data_line(bars);
  const Actions actions = simulate_job_actions(c, bars);  // read or drawn, and checked
  const ResolvedSimulation sim = resolve_simulation(with_spread(c.simulation, c.simulate.spread_bps), bars);
  std::printf("actions: %zu trials x %zu symbols x %zu bars, scoring from bar %zu\n", actions.n_trials,
              actions.n_symbols, actions.n_bars, sim.window.begin);
  std::printf("data and actions OK\n");
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("check", "Validate a run config and print what it would run");
  auto path = std::make_shared<std::string>();
  auto with_data = std::make_shared<bool>(false);
  cmd->add_option("config", *path, "Run config (YAML)")->required();
  cmd->add_flag("--data", *with_data,
                "Also load the data, compile the strategy and count the combos that pass the constraints");
  cmd->footer("\nExamples:\n  kbt check configs/sma_cross.yaml\n  kbt check configs/sma_cross.yaml --data");
  cmd->callback([path, with_data] {
    const RunConfig config = load_job_config(*path);
    if (config.job == Job::simulate) {
      print_simulate_summary(config);
      if (*with_data) check_simulate_with_data(config);
      return;
    }
    if (config.job == Job::label) {
      print_label_summary(config);
      if (*with_data) check_label_with_data(config);
      return;
    }
    print_summary(config);
    if (*with_data) check_with_data(config);
  });
}

}  // namespace kbt::cli
