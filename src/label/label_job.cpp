// The labelling job (docs/label.md "The label job"): expressions first, on
// the job's engine, then the labels of every barrier setting.

#include <kbt/label/label_job.hpp>

#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/sweep/sweep_kernel.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <chrono>
#include <cmath>
#include <limits>

namespace kbt {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

CompileOptions label_options() {
  CompileOptions o;
  o.allow_lead = true;  // labels may look ahead; no other job may
  return o;
}

struct LabelPrograms {
  Program volatility;
  std::optional<Program> side, events;
};

// Compiles one label expression in `scope` (the section's functions and
// signals); `boolean` says which kind it must be.
Program compile_label_expression(const StrategySpec& scope, const SourceText& text, const BarData& bars,
                                 const char* key, bool boolean) {
  Program p = compile_strategy_expression(scope, text, schema_of(bars), label_options());
  if (static_cast<bool>(p.code.at(static_cast<std::size_t>(p.expression)).is_boolean) != boolean)
    throw Error(ErrorCategory::language,
                text.where() + ": " + key + " must be " +
                    (boolean ? "a condition (true: the bar is an event)" : "a number, not a condition"));
  return p;
}

// `volatility` and `side` are names in the keys after them (docs/label.md):
// `events: side != lag(side, 1)` reads the side as label.side defines it.
void add_label_name(StrategySpec& scope, const std::string& name, const SourceText& text) {
  for (const auto& [signal, where] : scope.signals)
    if (signal == name)
      throw Error(ErrorCategory::config, where.where() + ": label.signals: '" + name + "' is the name of label." +
                                             name + " in the keys after it; rename this signal");
  scope.signals.emplace_back(name, text);
}

LabelPrograms compile_label_programs(const RunConfig& config, const BarData& bars) {
  const LabelSettings& l = config.label;
  LabelPrograms p;
  StrategySpec scope = config.strategy;
  p.volatility = compile_label_expression(scope, l.volatility, bars, "label.volatility", false);
  add_label_name(scope, "volatility", l.volatility);
  if (l.side) {
    p.side = compile_label_expression(scope, *l.side, bars, "label.side", false);
    add_label_name(scope, "side", *l.side);
  }
  if (l.events) p.events = compile_label_expression(scope, *l.events, bars, "label.events", true);
  return p;
}

// [symbol][bar]: the reference evaluator, or the sweep kernel's on a space
// (the same bits in fp64).
std::vector<double> evaluate(const std::string& device, const Program& program, const BarData& bars) {
  if (device == "reference") return evaluate_expression_reference(program, bars, nullptr);
  return evaluate_register_kernel_on(device, false, program, make_sweep_plan(program, bars), bars, {},
                                     program.expression);
}

}  // namespace

std::vector<BarrierSetting> barrier_grid(const LabelSettings& label) {
  std::vector<BarrierSetting> grid;
  for (const double pt : label.profit_take.values)
    for (const double sl : label.stop.values)
      for (const double h : label.horizon.values) grid.push_back({pt, sl, static_cast<std::int64_t>(h)});
  return grid;
}

void check_label_expressions(const RunConfig& config, const BarData& bars) { compile_label_programs(config, bars); }

LabelJobResult run_label_job(const RunConfig& config, const BarData& bars, const std::string& device) {
  if (config.job != Job::label) throw Error(ErrorCategory::internal, config.source_path + ": not a labelling job");
  LabelJobResult r;
  r.settings = barrier_grid(config.label);
  const std::size_t n = bars.n_symbols() * bars.n_bars();
  if (n == 0) throw Error(ErrorCategory::data_format, config.data_path + ": no bars to label");
  const double cells = static_cast<double>(r.settings.size()) * static_cast<double>(n);
  if (cells > static_cast<double>(max_label_cells))
    throw Error(ErrorCategory::limit,
                config.where("label") + ": " + std::to_string(r.settings.size()) + " barrier settings x " +
                    std::to_string(bars.n_symbols()) + " symbols x " + std::to_string(bars.n_bars()) +
                    " bars is more than " + std::to_string(max_label_cells) +
                    " labels (18 bytes each in memory); narrow the grid, the symbols or the data");
  r.device = choose_job_device(device.empty() ? config.label.device : device);

  const auto t0 = Clock::now();
  const LabelPrograms programs = compile_label_programs(config, bars);
  r.volatility = evaluate(r.device, programs.volatility, bars);
  r.side = programs.side ? evaluate(r.device, *programs.side, bars) : std::vector<double>(n, 1.0);
  if (programs.events) {
    const std::vector<double> is_event = evaluate(r.device, *programs.events, bars);
    for (std::size_t i = 0; i < n; ++i)
      if (!(is_event[i] == 1.0)) r.side[i] = std::numeric_limits<double>::quiet_NaN();
  }
  r.seconds_expressions = seconds_since(t0);

  const auto t1 = Clock::now();
  BarrierInputs in;
  in.n_symbols = bars.n_symbols();
  in.n_bars = bars.n_bars();
  in.open = bars.columns.at("open").data();
  in.high = bars.columns.at("high").data();
  in.low = bars.columns.at("low").data();
  in.close = bars.columns.at("close").data();
  in.volatility = r.volatility.data();
  in.side = r.side.data();
  r.labels = triple_barrier_on_device(r.device, in, r.settings);
  r.seconds_labels = seconds_since(t1);
  r.events.assign(r.settings.size(), 0);
  for (std::size_t s = 0; s < r.settings.size(); ++s)
    for (std::size_t i = 0; i < n; ++i) r.events[s] += r.labels.barrier[s * n + i] != detail::barrier_none;
  return r;
}

}  // namespace kbt
