// `kbt check CONFIG`: load and validate a run config and print what it asks for,
// without touching the data or running anything.

#include <CLI/CLI.hpp>
#include <kbt/config_loader.hpp>
#include <kbt/error.hpp>
#include <kbt/param_grid.hpp>

#include <cstdio>
#include <filesystem>
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
  if (ns) {
    // civil_from_days (H. Hinnant) for a readable UTC time.
    std::int64_t secs = *ns / 1000000000, nanos = *ns % 1000000000;
    if (nanos < 0) nanos += 1000000000, secs -= 1;
    std::int64_t z = (secs >= 0 ? secs : secs - 86399) / 86400;
    const std::int64_t sod = secs - z * 86400;
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const std::int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    const std::int64_t y = yoe + era * 400 + (m <= 2);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%09lldZ", static_cast<long long>(y),
                  static_cast<long long>(m), static_cast<long long>(d), static_cast<long long>(sod / 3600),
                  static_cast<long long>(sod / 60 % 60), static_cast<long long>(sod % 60),
                  static_cast<long long>(nanos));
    return buf;
  }
  return none;
}

void print_summary(const RunConfig& c) {
  std::printf("config: %s\n", c.source_path.c_str());
  std::error_code ec;
  const bool exists = std::filesystem::exists(c.data_path, ec);
  std::printf("data: %s%s\n", c.data_path.c_str(), exists ? "" : "  (not found)");
  std::string symbols;
  for (const auto& x : c.symbols) symbols += (symbols.empty() ? "" : ", ") + x;
  std::printf("symbols: %s\n", symbols.empty() ? "all in the data file" : symbols.c_str());

  const StrategySpec& st = c.strategy;
  const ParamGrid grid(st.params);
  std::printf("params (%zu):\n", grid.n_params());
  for (const auto& p : st.params)
    std::printf("  %-12s %-8s %6zu value%s %-8s %s\n", p.name.c_str(), kind_name(p.kind), p.values.size(),
                p.values.size() == 1 ? " " : "s", p.is_integer ? "integer" : "real", axis_preview(p.values).c_str());
  std::printf("combos: %s before constraints (%zu constraint%s)\n", format_count(grid.n_combos()).c_str(),
              st.constraints.size(), st.constraints.size() == 1 ? "" : "s");
  for (const auto& x : st.constraints) std::printf("  constraint %s: %s\n", x.where().c_str(), x.text.c_str());
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
  std::string fees = format_number(s.fee_bps);
  if (!s.fee_bps_by_venue.empty()) {
    fees.clear();
    for (const auto& [venue, bps] : s.fee_bps_by_venue) fees += (fees.empty() ? "" : ", ") + venue + " " + format_number(bps);
  }
  std::printf("simulation: initial_capital %s, fill %s, fee_bps %s, slippage_bps %s, borrow_rate %s\n",
              format_number(s.initial_capital).c_str(),
              s.fill == SimulationSettings::Fill::close ? "close" : "next_open", fees.c_str(),
              format_number(s.slippage_bps).c_str(), format_number(s.borrow_rate).c_str());
  std::printf("  stop_loss %s, take_profit %s, trailing_stop %s, sltp_priority %s\n",
              optional_fraction(s.stop_loss).c_str(), optional_fraction(s.take_profit).c_str(),
              optional_fraction(s.trailing_stop).c_str(),
              s.sltp_priority == SimulationSettings::SltpPriority::stop_first ? "stop_first" : "target_first");
  std::printf("  max_gross_leverage %s, weighting %s, score_start %s, periods_per_year %s\n",
              format_number(s.max_gross_leverage).c_str(), s.weighting == SimulationSettings::Weighting::raw ? "raw" : "equal",
              time_point(s.score_start_bar, s.score_start_time_ns, "first bar").c_str(),
              s.periods_per_year ? format_number(*s.periods_per_year).c_str() : "inferred");

  const SweepSettings& w = c.sweep;
  std::printf("sweep: device %s, precision %s, objective %s %s (min_trades %s), top_k %lld\n", w.device.c_str(),
              w.precision.c_str(), w.objective.maximize ? "max" : "min", w.objective.metric.c_str(),
              format_number(w.objective.min_trades).c_str(), static_cast<long long>(w.top_k));
  std::printf("  max_combos %s, memory_budget_mb %s\n", format_count(w.max_combos).c_str(),
              w.memory_budget_mb ? format_number(*w.memory_budget_mb).c_str() : "auto");
  const VerifySettings& v = c.verify;
  std::printf("verify: top_n %lld, threads %s, score_start %s, score_end %s\n", static_cast<long long>(v.top_n),
              v.threads == 0 ? "all cores" : std::to_string(v.threads).c_str(),
              time_point(v.score_start_bar, v.score_start_time_ns, "as simulation").c_str(),
              time_point(v.score_end_bar, v.score_end_time_ns, "last bar").c_str());
  const OutputSettings& o = c.output;
  std::printf("output: %s, csv %s, heatmap %s\n", o.path.c_str(), o.csv ? "yes" : "no",
              o.heatmap.empty() ? "none" : (o.heatmap[0] + " x " + o.heatmap[1]).c_str());
  if (!exists)
    throw Error(ErrorCategory::io, c.data_origin.where() + ": data file '" + c.data_path + "' does not exist");
  std::printf("config OK\n");
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("check", "Validate a run config and print what it would run");
  auto path = std::make_shared<std::string>();
  cmd->add_option("config", *path, "Run config (YAML)")->required();
  cmd->callback([path] { print_summary(load_run_config(*path)); });
}

}  // namespace kbt::cli
