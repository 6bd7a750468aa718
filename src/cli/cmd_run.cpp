// `kbt run CONFIG`: the whole batch job — load, compile, sweep, top-K, write.

#include <CLI/CLI.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/job/sweep_job.hpp>
#include <kbt/output/checkpoint.hpp>
#include <kbt/output/results.hpp>
#include <kbt/validation/validation.hpp>
#include <kbt/verify/verify.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/job_run.hpp"
#include "cli/label_job_command.hpp"
#include "cli/mpi_session.hpp"
#include "cli/progress_printer.hpp"
#include "cli/rank_shares.hpp"
#include "cli/simulate_job_command.hpp"
#include "cli/table_format.hpp"
#include "plot/plots.hpp"

namespace kbt::cli {
namespace {

struct RunArgs {
  std::string config_path, device, out, calibration;
  int threads = 0;
  std::uint64_t sample = 0, seed = 0, chunk = 0;
  std::size_t show = 10;
  bool quiet = false, profile = false, no_verify = false, resume = false;
};

// The command that continues this run, stored in its checkpoint.
std::string resume_command_for(const RunArgs& a) {
  std::string cmd = "kbt run " + a.config_path + " --resume";
  if (!a.out.empty()) cmd += " --out " + a.out;
  if (!a.device.empty()) cmd += " --device " + a.device;
  if (a.sample > 0) cmd += " --sample " + std::to_string(a.sample) + " --seed " + std::to_string(a.seed);
  return cmd;
}

// What `kbt run` says when Ctrl-C stopped it between chunks.
std::string interrupted_message(const std::string& checkpoint) {
  std::error_code ec;
  if (!std::filesystem::exists(checkpoint, ec))
    return "kbt: interrupted before the sweep wrote anything; run it again to start";
  const CheckpointStatus s = read_checkpoint_status(checkpoint);
  return "kbt: interrupted: the checkpoint " + checkpoint + " holds " + std::to_string(s.combos_done) + " of " +
         std::to_string(s.combos_total) + " combos; continue with '" + s.resume_command + "'";
}

// output.heatmap: the objective over the two params, others at the best
// combo's values, from the run's results (their rows read from the results
// file just written). The results are already written: a failure here is a
// warning, not a failed run.
std::string draw_heatmap(const RunConfig& config, const SweepResults& results, const std::string& out) {
  try {
    HeatmapRequest request;
    request.x = config.output.heatmap.at(0);
    request.y = config.output.heatmap.at(1);
    request.min_trades = config.sweep.objective.min_trades;
    const auto grid = heatmap_grid(results, request);
    const std::string path = companion_path(out, "_heatmap.png");
    plot::write_heatmap_png(grid, path, config.source_path + ": " + grid.metric + " over " + request.x + " x " + request.y);
    return path;
  } catch (const Error& e) {
    std::fprintf(stderr, "kbt: warning: no heatmap: %s\n", e.what());
    return {};
  }
}

// A labelling job (docs/label.md) or an action-driven simulation
// (docs/simulate.md): no sweep, so no checkpoint, sample or calibration.
void run_single_kernel_job(const RunArgs& a, const RunConfig& config) {
  const char* job = config.job == Job::label ? "a labelling job" : "an action-driven simulation";
  const std::pair<bool, const char*> sweep_only[] = {{a.resume, "--resume (it has no checkpoint)"},
                                                     {a.sample > 0, "--sample (it has no combos)"},
                                                     {!a.calibration.empty(), "--calibration"}};
  for (const auto& [given, flag] : sweep_only)
    if (given) throw Error(ErrorCategory::config, std::string(flag) + ": " + a.config_path + " is " + job +
                                                  "; the flag belongs to sweeps");
  JobRunOptions o;
  o.device = a.device;
  o.out = a.out;
  o.show = a.show;
  o.profile = a.profile;
  if (config.job == Job::label) run_label_config(config, o);
  else run_simulate_config(config, o);
}

void run(const RunArgs& a) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  // Under mpirun every rank loads the inputs; a failure on any of them is
  // reported once, by the first rank (docs/mpi.md "Faults").
  ChunkExchange* const exchange = world_exchange();
  const bool root = is_root_rank();
  RunConfig config;
  BarData bars;
  collectively(exchange, [&] {
    config = load_job_config(a.config_path);
    if (config.job != Job::sweep && exchange)
      throw Error(ErrorCategory::unsupported, a.config_path + ": a " + (config.job == Job::label ? "labelling job" : "simulate job") +
                                                  " runs on one process; run it without mpirun (docs/mpi.md)");
    if (config.job == Job::sweep) bars = load_run_data(config);
  });
  if (config.job != Job::sweep) return run_single_kernel_job(a, config);

  SweepJobOptions options;
  options.seconds_load = std::chrono::duration<double>(Clock::now() - t0).count();
  options.device = a.device;
  options.threads = a.threads;
  options.quiet = a.quiet || !root;
  options.exchange = exchange;
  options.calibration = a.calibration;
  if (a.sample > 0) {
    options.sample = a.sample;
    options.sample_seed = a.seed;
  }
  options.verify = !a.no_verify;
  options.checkpoint_combos = a.chunk;
  options.out = a.out.empty() ? config.output.path : a.out;
  options.resume = a.resume;
  options.resume_command = resume_command_for(a);
  // Progress of the sweep and of the verification (docs/cli.md "Progress"),
  // and Ctrl-C between chunks ("Interrupts"; not under mpirun, whose ranks
  // must stop at the same chunk: there SIGINT keeps its default).
  ProgressPrinter progress(a.quiet || !root);
  std::optional<InterruptBetweenChunks> interrupt;
  if (!exchange) interrupt.emplace();
  options.progress = [&](const SweepProgress& p) {
    if (interrupt && interrupt->requested()) throw Interrupted{};
    if (progress.enabled()) progress.update(stage_progress_line(p), p.done >= p.total);
  };
  SweepJobResult job;
  try {
    job = run_sweep_job(config, bars, options);
  } catch (const Interrupted&) {
    progress.end_line();
    throw Interrupted{interrupted_message(checkpoint_path_for(options.out))};
  }
  interrupt.reset();
  progress.end_line();
  if (!root) return;  // the first rank wrote and reports
  const SweepOutcome& outcome = job.sweep;
  const std::optional<VerificationResults>& verification = job.verification;
  const std::optional<ValidationResults>& validation = job.validation;
  const std::string& out = job.out;
  const std::string& csv = job.csv;
  const std::string heatmap = config.output.heatmap.size() == 2 ? draw_heatmap(config, outcome.results, out) : "";

  const auto& r = outcome.results;
  std::printf("%llu combos on %zu bars x %zu symbols, device %s\n", static_cast<unsigned long long>(r.n_rows()),
              bars.n_bars(), bars.n_symbols(), outcome.device_used.c_str());
  std::fputs(format_rank_shares(outcome.profile).c_str(), stdout);
  if (outcome.ruined > 0) {  // docs/semantics.md "Ruin"
    std::string ids;
    for (const std::uint64_t id : outcome.ruined_combo_ids) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    if (outcome.ruined > outcome.ruined_combo_ids.size()) ids += ", ...";
    std::printf("%llu of %llu combos ruined (equity reached 0): combos %s\n",
                static_cast<unsigned long long>(outcome.ruined), static_cast<unsigned long long>(r.n_rows()),
                ids.c_str());
  }
  const RowTable shown = r.best.first(std::min(a.show, r.top_k));
  std::printf("top %zu by %s (%s):\n", shown.size(), r.objective_metric.c_str(), r.maximize ? "max" : "min");
  auto metrics = default_table_metrics();
  if (std::find(metrics.begin(), metrics.end(), r.objective_metric) == metrics.end())
    metrics.insert(metrics.begin(), r.objective_metric);
  std::fputs(format_result_table(r.param_names, shown, metrics).c_str(), stdout);
  if (verification) std::fputs(format_verification_summary(*verification, std::min<std::size_t>(a.show, 10)).c_str(), stdout);
  if (validation) std::fputs(format_validation_summary(*validation, std::min<std::size_t>(a.show, 10)).c_str(), stdout);
  std::printf("results: %s%s%s\n", out.c_str(), csv.empty() ? "" : "  top-K CSV: ", csv.c_str());
  if (!heatmap.empty()) std::printf("heatmap: %s\n", heatmap.c_str());
  if (a.profile) print_job_profile(outcome.profile, job.seconds_write);
  // The results (with /verify) are written for diagnosis; the run still fails.
  if (verification) check_no_mismatch(*verification, out);
}

}  // namespace

void add_run_command(CLI::App& app) {
  static RunArgs args;
  auto* cmd = app.add_subcommand("run", "Run the job a YAML config describes: a parameter sweep, labels (job: label) or an action simulation (job: simulate)");
  cmd->add_option("config", args.config_path, "Run config (YAML)")->required();
  cmd->add_option("--device", args.device, "reference | serial | openmp | cuda | auto (default: the config's)")
      ->check(CLI::IsMember({"auto", "reference", "serial", "openmp", "cuda"}));
  cmd->add_option("--out,-o", args.out, "Results HDF5 path (default: the config's output.path)");
  cmd->add_option("--calibration", args.calibration,
                  "Calibration file for the device choice (default: $KBT_CALIBRATION, else ~/.config/kbt/calibration.yaml)");
  cmd->add_option("--threads", args.threads, "Host threads for the reference engine (0 = all cores)");
  cmd->add_option("--sample", args.sample, "Run a deterministic random subset of N combos");
  cmd->add_option("--seed", args.seed, "Seed of --sample")->needs("--sample");
  cmd->add_option("--rows,--show", args.show, "Rows of the top-K table to print")->capture_default_str();
  cmd->add_option("--checkpoint-combos", args.chunk,
                  "Combos per chunk: the unit of checkpoints, progress and (under mpirun) of sharing (default: the "
                  "config's sweep.checkpoint_combos, else auto)");
  cmd->add_flag("--no-verify", args.no_verify, "Skip the verification stage (as verify.top_n: 0)");
  cmd->add_flag("--quiet", args.quiet, "No warnings or progress on stderr");
  cmd->add_flag("--resume", args.resume,
                "Continue the interrupted run whose checkpoint is <out>.partial.h5 (same config, data, device, sample)");
  cmd->add_flag("--profile", args.profile, "Print the run profile");
  cmd->footer("\nExamples:\n  kbt run configs/sma_cross.yaml\n  kbt run configs/sma_cross.yaml --device openmp -o /tmp/r.h5 --rows 5"
              "\n  kbt run configs/sma_cross.yaml --resume   # after an interruption"
              "\n  kbt run configs/triple_barrier.yaml        # a labelling job"
              "\n  kbt run configs/random_policy.yaml         # an action-driven simulation");
  cmd->callback([] { run(args); });
}

}  // namespace kbt::cli
