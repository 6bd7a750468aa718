// `kbt validate RESULTS.h5`: the validation stage (docs/validation.md) again
// on a finished run — with other settings, or for a run whose config had no
// validation section — without sweeping again; /validation is written into
// the file or into --out.

#include <CLI/CLI.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/output/results.hpp>
#include <kbt/validation/validation.hpp>
#include <kbt/verify/verify.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "cli/commands.hpp"

namespace kbt::cli {
namespace {

struct ValidateArgs {
  std::string results_path, out, period, device = "reference";
  std::optional<std::int64_t> top_k, pbo_blocks;
  int threads = 0;
  std::size_t show = 10;
};

// The run's config with the command line's validation settings written into
// its `validation:` section (created when absent), parsed again so that every
// rule and message of the config loader applies to them.
RunConfig with_overrides(const ResultsRerun& rerun, const ValidateArgs& a) {
  YAML::Node doc = YAML::Load(rerun.loaded.config_yaml);
  if (!doc["validation"] || !doc["validation"].IsMap()) doc["validation"] = YAML::Node(YAML::NodeType::Map);
  YAML::Node v = doc["validation"];
  if (a.top_k) v["top_k"] = *a.top_k;
  if (!a.period.empty()) v["period"] = a.period;
  if (a.pbo_blocks) v["pbo_blocks"] = *a.pbo_blocks;
  YAML::Emitter out;
  out << doc;
  RunConfig config = parse_run_config(out.c_str(), a.results_path + " /config with the command line's validation", "");
  config.data_path = rerun.config.data_path;
  return config;
}

void check_device(const std::string& device) {
  std::string names = "reference";
  for (const auto& s : enabled_execution_spaces()) {
    if (s.name == device) return;
    names += ", " + s.name;
  }
  if (device == "reference") return;
  throw Error(ErrorCategory::config, "--device '" + device + "': this build runs on " + names);
}

void validate(const ValidateArgs& a) {
  check_device(a.device);
  const ResultsRerun rerun = open_results_for_rerun(a.results_path);
  const RunConfig config = with_overrides(rerun, a);
  const SweepResults& sweep = rerun.loaded.results;
  // The candidates are the file's best rows (every metric): asking for more
  // would need them simulated again, which is a new run.
  const auto held = sweep.best.size();
  if (static_cast<std::size_t>(config.validation.top_k) > held) {
    if (a.top_k)
      throw Error(ErrorCategory::config,
                  "--top-k " + std::to_string(*a.top_k) + ": " + a.results_path + " holds its best " +
                      std::to_string(held) +
                      " rows with every metric; run again with a larger sweep.top_k or validation.top_k for more");
  }
  RunConfig effective = config;
  effective.validation.top_k = std::min<std::int64_t>(config.validation.top_k, static_cast<std::int64_t>(held));
  const ValidationResults v = run_validation(effective, rerun.bars, sweep, a.device, a.threads);
  const std::string out = a.out.empty() ? a.results_path : a.out;
  write_validation_hdf5(a.results_path, out, v);
  std::fputs(format_validation_summary(v, a.show).c_str(), stdout);
  std::printf("validation written to %s (/validation)\n", out.c_str());
}

}  // namespace

void add_validate_command(CLI::App& app) {
  static ValidateArgs args;
  auto* cmd = app.add_subcommand(
      "validate", "Run the validation stage (PSR, DSR, PBO, holdout or walk-forward) again on a results file");
  cmd->add_option("results", args.results_path, "Results HDF5 file written by kbt run")->required();
  cmd->add_option("--top-k", args.top_k, "Candidates studied (default: the config's validation.top_k, at most the file's top-K)");
  cmd->add_option("--period", args.period, "Per-period returns: day, week, month or a number of bars (default: the config's)");
  cmd->add_option("--pbo-blocks", args.pbo_blocks, "CSCV blocks for the PBO: even, 2..26 (default: the config's)");
  cmd->add_option("--device", args.device, "Where the correlation and the PBO run: reference or an enabled space")
      ->capture_default_str();
  cmd->add_option("--threads", args.threads, "Host threads for the candidates' simulations (0 = all cores)");
  cmd->add_option("--out,-o", args.out, "Write a copy with /validation here instead of updating RESULTS.h5");
  cmd->add_option("--rows,--show", args.show, "Rows of the summary table")->capture_default_str();
  cmd->footer("\nExamples:\n  kbt validate results/sma_cross.h5"
              "\n  kbt validate results/sma_cross.h5 --period week --pbo-blocks 10 -o weekly.h5");
  cmd->callback([] { validate(args); });
}

}  // namespace kbt::cli
