// `kbt verify RESULTS.h5`: re-verifies the candidates of an existing results
// file (config from /config, data from the profile's data_path) without
// sweeping again, and writes /verify into it or into --out.

#include <CLI/CLI.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/verify/verify.hpp>

#include <cstdio>

#include "cli/commands.hpp"
#include "cli/progress_printer.hpp"

namespace kbt::cli {
namespace {

struct VerifyArgs {
  std::string results_path, out, score_start, score_end, objective, direction;
  // Set only when given (CLI::App::count).
  std::int64_t top_n = 0, rank_threshold = 0;
  double min_trades = 0;
  int threads = 0;
  bool has_top_n = false, has_rank_threshold = false, has_min_trades = false, has_threads = false;
  std::size_t show = 10;
  bool quiet = false;
};

void verify(const VerifyArgs& a) {
  const ResultsRerun rerun = open_results_for_rerun(a.results_path);
  const LoadedResults& loaded = rerun.loaded;
  const RunConfig& config = rerun.config;
  const BarData& bars = rerun.bars;

  VerifyRequest request = verify_request_from_config(config);
  if (!loaded.profile_text("precision").empty()) request.sweep_precision = loaded.profile_text("precision");
  if (a.has_top_n) request.top_n = a.top_n;
  if (a.has_threads) request.threads = a.threads;
  if (a.has_rank_threshold) request.rank_threshold = a.rank_threshold;
  if (!a.score_start.empty())
    parse_window_bound(a.score_start, "--score-start", request.score_start_bar, request.score_start_time_ns);
  if (!a.score_end.empty())
    parse_window_bound(a.score_end, "--score-end", request.score_end_bar, request.score_end_time_ns);
  if (!a.objective.empty() || !a.direction.empty() || a.has_min_trades) {
    Objective o = config.sweep.objective;
    if (!a.objective.empty() && a.objective != o.metric) {
      const int m = metric_index(a.objective);
      if (m < 0) throw Error(ErrorCategory::config, "--objective: " + unknown_metric_message(a.objective));
      o.metric = a.objective;
      o.maximize = metric_higher_is_better(m);  // the metric's natural direction
    }
    if (!a.direction.empty()) o.maximize = a.direction == "max";
    if (a.has_min_trades) o.min_trades = a.min_trades;
    request.objective = o;
  }
  if (request.top_n == 0) throw Error(ErrorCategory::config, "--top-n 0 verifies nothing");

  ProgressPrinter progress(a.quiet);
  request.progress = verification_progress(progress);
  const VerificationResults v = verify_candidates(config, bars, loaded.results, request);
  progress.end_line();
  const std::string out = a.out.empty() ? a.results_path : a.out;
  write_verification_hdf5(a.results_path, out, v);
  std::fputs(format_verification_summary(v, a.show).c_str(), stdout);
  std::string replaced;  // what this /verify took the place of
  if (const auto& before = loaded.verification)
    replaced = "; it replaced the earlier /verify of " + std::to_string(before->combo_ids.size()) + " candidates by " +
               before->objective.metric + " (" + (before->objective.maximize ? "max" : "min") + "), " + before->window;
  std::printf("verification written to %s (/verify%s)\n", out.c_str(), replaced.c_str());
  check_no_mismatch(v, out);
}

}  // namespace

void add_verify_command(CLI::App& app) {
  static VerifyArgs args;
  auto* cmd = app.add_subcommand("verify", "Re-verify the best candidates of a results file on the reference engine");
  cmd->add_option("results", args.results_path, "Results HDF5 file written by kbt run")->required();
  auto* top_n = cmd->add_option("--top-n", args.top_n, "Candidates to verify (default: the config's verify.top_n)");
  cmd->add_option("--score-start", args.score_start, "Start of the scoring window: bar index or UTC timestamp");
  cmd->add_option("--score-end", args.score_end, "End of the scoring window (exclusive): bar index or UTC timestamp");
  auto* threads = cmd->add_option("--threads", args.threads, "Host threads (0 = all cores; default: the config's verify.threads)");
  cmd->add_option("--objective", args.objective, "Metric that ranks the verified candidates (default: the sweep's)");
  cmd->add_option("--direction", args.direction, "max or min for --objective (default: the sweep's for its own objective, else the metric's natural direction)")->check(CLI::IsMember({"max", "min"}));
  auto* min_trades = cmd->add_option("--min-trades", args.min_trades, "Eligibility of the verified ranking (default: the sweep's)");
  auto* rank_threshold = cmd->add_option("--rank-threshold", args.rank_threshold, "rank_moved threshold for fp32 sweeps (default 10)");
  cmd->add_option("--out,-o", args.out, "Write a copy with /verify here instead of updating RESULTS.h5");
  cmd->add_flag("--quiet", args.quiet, "No progress on stderr");
  cmd->add_option("--rows,--show", args.show, "Rows of the summary table")->capture_default_str();
  cmd->footer("\nExamples:\n  kbt verify results/sma_cross.h5 --top-n 100\n  kbt verify results/sma_cross.h5 --objective ulcer_index -o /tmp/verified.h5");
  cmd->callback([=] {
    args.has_top_n = top_n->count() > 0;
    args.has_threads = threads->count() > 0;
    args.has_min_trades = min_trades->count() > 0;
    args.has_rank_threshold = rank_threshold->count() > 0;
    verify(args);
  });
}

}  // namespace kbt::cli
