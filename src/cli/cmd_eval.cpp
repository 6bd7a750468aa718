// `kbt eval`: evaluates one strategy expression on a data file with the reference
// evaluator and writes it as CSV (timestamp,value or one column per symbol).

#include <CLI/CLI.hpp>
#include <kbt/core/atomic_output.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/sweep/sweep_kernel.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace kbt::cli {

namespace {

struct EvalOptions {
  std::string data;
  std::string expr;
  std::vector<std::string> params;
  std::vector<std::string> symbols;
  std::string out;
  std::string device = "reference";
  bool dump = false;
};

// "name=value" -> a one-value param axis.
ParamSpec parse_param(const std::string& arg) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    throw Error(ErrorCategory::config, "--param '" + arg + "': expected name=value, e.g. --param fast=20");
  ParamSpec p;
  p.name = arg.substr(0, eq);
  const std::string text = arg.substr(eq + 1);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || std::isnan(v) || std::isinf(v))
    throw Error(ErrorCategory::config, "--param '" + arg + "': '" + text + "' is not a finite number");
  p.kind = ParamSpec::Kind::values;
  p.values = {v};
  p.is_integer = v == std::floor(v);
  p.origin = SourceText{arg, "--param", 0, 0};
  return p;
}

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

void run_eval(const EvalOptions& o) {
  std::vector<ParamSpec> params;
  std::vector<double> values;
  for (const auto& arg : o.params) {
    ParamSpec p = parse_param(arg);
    for (const auto& q : params)
      if (q.name == p.name) throw Error(ErrorCategory::config, "--param " + p.name + " is given twice");
    values.push_back(p.values[0]);
    params.push_back(std::move(p));
  }
  const BarData data = load_bars_hdf5(o.data, o.symbols);
  const Program program = compile_expression(SourceText{o.expr, "--expr", 1, 1}, schema_of(data), params);
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
  auto* cmd = app.add_subcommand("eval", "Evaluate one strategy expression on a data file");
  cmd->add_option("--data", opts->data, "HDF5 data file")->required();
  cmd->add_option("--expr", opts->expr, "Expression, e.g. \"zscore(close - sma(close, 20), 50)\"")->required();
  cmd->add_option("--param", opts->params, "Param value name=value (repeatable)");
  cmd->add_option("--symbol", opts->symbols, "Symbols to evaluate, in this order (repeatable; default all)");
  cmd->add_option("--out", opts->out, "Write the CSV here (atomically) instead of stdout");
  cmd->add_option("--device", opts->device, "reference (default) | serial | openmp | cuda")
      ->check(CLI::IsMember({"reference", "serial", "openmp", "cuda"}));
  cmd->add_flag("--dump", opts->dump, "Print the compiled program instead of evaluating it");
  cmd->callback([opts] { run_eval(*opts); });
}

}  // namespace kbt::cli
