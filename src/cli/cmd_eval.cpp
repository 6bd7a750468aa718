// `kbt eval`: evaluates one strategy expression — given with --expr, or a
// config's named signal or output (--signal) for one combo — on a data file,
// and writes it as CSV (timestamp,value or one column per symbol).

#include <CLI/CLI.hpp>
#include <kbt/core/atomic_output.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/diagnostics.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/sweep/sweep_kernel.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace kbt::cli {

namespace {

struct EvalOptions {
  std::string config;  // optional: the strategy (signals, scans, params) and its data
  std::string data;
  std::string expr, signal;
  std::vector<std::string> params;
  std::vector<std::string> symbols;
  std::string out;
  std::string device = "reference";
  bool dump = false;
};

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void write_csv(std::FILE* f, const BarData& data, const std::vector<double>& values) {
  const std::size_t nb = data.n_bars(), ns = data.n_symbols();
  std::string line = "timestamp";
  if (ns == 1) {
    line += ",value";
  } else {
    for (const auto& s : data.symbols) line += "," + s;
  }
  std::fprintf(f, "%s\n", line.c_str());
  for (std::size_t b = 0; b < nb; ++b) {
    line = format_iso8601_utc(data.timestamps[b]);
    for (std::size_t s = 0; s < ns; ++s) line += "," + format_value(values[s * nb + b]);
    std::fprintf(f, "%s\n", line.c_str());
  }
}

// The text `--signal NAME` evaluates: a signal or scan output by name, or an
// output (position, long_entry, ...) by its own expression, so that errors
// point into the config.
SourceText signal_expression(const StrategySpec& spec, const std::string& name) {
  const std::pair<const char*, const std::optional<SourceText>*> outputs[] = {
      {"position", &spec.position},   {"long_entry", &spec.long_entry},   {"long_exit", &spec.long_exit},
      {"short_entry", &spec.short_entry}, {"short_exit", &spec.short_exit}};
  std::vector<std::string> names;
  for (const auto& [output, text] : outputs) {
    if (!*text) continue;
    if (name == output) return **text;
    names.emplace_back(output);
  }
  for (const auto& signal : spec.signals) names.push_back(signal.first);
  for (const auto& scan : spec.scans)
    for (const auto& out : scan.outputs) names.push_back(scan.name + "." + out.first);
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    throw Error(ErrorCategory::config, "--signal: the strategy has no signal '" + name + "'" + did_you_mean(name, names) +
                                           " (it has: " + all + ")");
  }
  return SourceText{name, "--signal", 1, 1};
}

void run_eval(const EvalOptions& o) {
  if (o.expr.empty() == o.signal.empty())
    throw Error(ErrorCategory::config, "give --expr EXPRESSION, or a config and --signal NAME (exactly one of them)");
  if (!o.signal.empty() && o.config.empty())
    throw Error(ErrorCategory::config, "--signal " + o.signal + " names a signal of a config; give the config first "
                                       "(kbt eval CONFIG --signal " + o.signal + ")");
  if (o.config.empty() && o.data.empty()) throw Error(ErrorCategory::config, "--data is required without a config");
  const auto assigned = parse_param_assignments(o.params, "--params");
  Program program;
  std::vector<double> values;
  BarData data;
  if (!o.config.empty()) {
    const RunConfig config = load_run_config(o.config);
    if (!o.data.empty()) throw Error(ErrorCategory::config, "--data: " + o.config + " names its data; give one of them");
    data = load_bars(config.data_path, o.symbols.empty() ? config.symbols : o.symbols, config.external_data);
    const auto one = one_combo_strategy(config.strategy, assigned);
    values = one.values;
    const SourceText text = o.signal.empty() ? SourceText{o.expr, "--expr", 1, 1} : signal_expression(one.spec, o.signal);
    program = compile_strategy_expression(one.spec, text, schema_of(data));
  } else {
    data = load_bars(o.data, o.symbols);
    OneExpression one = compile_one_expression(SourceText{o.expr, "--expr", 1, 1}, schema_of(data), assigned, "--params");
    program = std::move(one.program);
    values = std::move(one.values);
  }
  if (o.dump) {
    std::fputs(disassemble(program).c_str(), stdout);
    return;
  }
  // Kokkos devices evaluate with the sweep kernel's evaluator (same bits in fp64).
  const std::vector<double> result =
      o.device == "reference"
          ? evaluate_expression_reference(program, data, values.data())
          : evaluate_register_kernel_on(o.device, false, program, make_sweep_plan(program, data), data, values,
                                        program.expression);
  if (o.out.empty()) {
    write_csv(stdout, data, result);
    return;
  }
  AtomicOutput out(o.out);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(out.temp_path().c_str(), "w"), &std::fclose);
  if (!f) throw Error(ErrorCategory::io, "cannot write '" + o.out + "'");
  write_csv(f.get(), data, result);
  if (std::fflush(f.get()) != 0 || std::ferror(f.get()))
    throw Error(ErrorCategory::io, "cannot write '" + o.out + "'");
  f.reset();
  out.commit();
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto opts = std::make_shared<EvalOptions>();
  auto* cmd = app.add_subcommand("eval", "Evaluate one strategy expression, or a config's signal for one combo");
  cmd->add_option("config", opts->config, "Run config (YAML): its signals, scans, params and data");
  cmd->add_option("--data", opts->data, "HDF5 data file (without a config)");
  cmd->add_option("--expr", opts->expr, "Expression, e.g. \"zscore(close - sma(close, 20), 50)\"");
  cmd->add_option("--signal", opts->signal, "With a config: its signal, scan output (scan.output) or output (position, ...)");
  cmd->add_option("--param,--params", opts->params,
                  "Param values: name=value, comma lists and repeated flags alike (fast=10,slow=50)")
      ->allow_extra_args(false);
  cmd->add_option("--symbol", opts->symbols, "Symbols to evaluate, in this order (repeatable; default all, or the config's)");
  cmd->add_option("--out,-o", opts->out, "Write the CSV here (atomically) instead of stdout");
  cmd->add_option("--device", opts->device, "reference (default) | serial | openmp | cuda")
      ->check(CLI::IsMember({"reference", "serial", "openmp", "cuda"}));
  cmd->add_flag("--dump", opts->dump, "Print the compiled program instead of evaluating it");
  cmd->footer("\nExamples:\n  kbt eval --data data/sample.h5 --expr \"sma(close, 20)\" -o sma20.csv"
              "\n  kbt eval configs/sma_cross.yaml --signal f --params fast=10,slow=50"
              "\n  kbt eval --data data/sample.h5 --expr \"sma(close, fast) > sma(close, slow)\" --params fast=10,slow=50");
  cmd->callback([opts] { run_eval(*opts); });
}

}  // namespace kbt::cli
