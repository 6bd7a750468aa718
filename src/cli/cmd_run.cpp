// `kbt run CONFIG`: the whole batch job — load, compile, sweep, top-K, write.

#include <CLI/CLI.hpp>
#include <kbt/output/checkpoint.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>
#include <kbt/output/run_lock.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/validation/validation.hpp>
#include <kbt/verify/verify.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sys/resource.h>

#include "cli/commands.hpp"
#include "cli/label_job_command.hpp"
#include "cli/progress_printer.hpp"
#include "cli/simulate_job_command.hpp"
#include "cli/table_format.hpp"
#include "plot/plots.hpp"

namespace kbt::cli {
namespace {

struct RunArgs {
  std::string config_path, device, out, calibration;
  int threads = 0;
  std::uint64_t sample = 0, seed = 0;
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

// A checkpoint at `path`: "N of M combos done", or why it cannot be read.
std::string describe_checkpoint(const std::string& path) {
  try {
    const CheckpointStatus s = read_checkpoint_status(path);
    return std::to_string(s.combos_done) + " of " + std::to_string(s.combos_total) + " combos done";
  } catch (const Error& e) {
    return e.what();
  }
}

std::string csv_path_for(const std::string& h5_path) {
  const auto dot = h5_path.rfind(".h5");
  return (dot == std::string::npos ? h5_path : h5_path.substr(0, dot)) + "_topk.csv";
}

std::string heatmap_path_for(const std::string& h5_path) {
  const auto dot = h5_path.rfind(".h5");
  return (dot == std::string::npos ? h5_path : h5_path.substr(0, dot)) + "_heatmap.png";
}

// output.heatmap: the objective over the two params, others at the best
// combo's values, read from the results file just written. The results are
// already written: a failure here is a warning, not a failed run.
std::string draw_heatmap(const RunConfig& config, const std::string& out) {
  try {
    plot::HeatmapRequest request;
    request.x = config.output.heatmap.at(0);
    request.y = config.output.heatmap.at(1);
    request.min_trades = config.sweep.objective.min_trades;
    const auto grid = plot::heatmap_grid(read_results_hdf5(out).results, request);
    const std::string path = heatmap_path_for(out);
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
  const RunConfig config = load_job_config(a.config_path);
  if (config.job != Job::sweep) return run_single_kernel_job(a, config);
  const BarData bars = load_run_data(config);
  const double load_seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  SweepRequest request;
  request.device = a.device;
  request.threads = a.threads;
  request.quiet = a.quiet;
  request.calibration = a.calibration;
  if (a.sample > 0) {
    request.sample = a.sample;
    request.sample_seed = a.seed;
  }
  const bool verify = !a.no_verify && config.verify.top_n.value_or(1) > 0;
  if (verify) {  // a bad verification window fails before the sweep, at its config line
    try {
      resolve_verify_window(config, bars, verify_request_from_config(config));
    } catch (const Error& e) {
      // The bound that made the window: verify's own, else the sweep's score_start.
      const char* key = config.key_origins.count("verify.score_start") ? "verify.score_start"
                        : config.key_origins.count("verify.score_end") ? "verify.score_end"
                                                                        : "simulation.score_start";
      throw config.located(key, e);
    }
  }
  // Checkpoint (docs/results.md "Incomplete runs and --resume").
  const std::string out = a.out.empty() ? config.output.path : a.out;
  const std::string checkpoint = checkpoint_path_for(out);
  const std::string csv = config.output.csv ? csv_path_for(out) : std::string();
  // One run per output at a time, for the run's whole life (docs/results.md
  // "Faults"); under the lock, temporaries of killed runs are orphans.
  const RunLock lock(out);
  for (const std::string& p : {out, checkpoint, csv})
    if (!p.empty()) remove_orphaned_temporaries(p);
  const bool have_checkpoint = std::filesystem::exists(checkpoint);
  if (have_checkpoint && !a.resume)
    throw Error(ErrorCategory::config, checkpoint + ": an unfinished run of " + out + " left this checkpoint (" +
                                           describe_checkpoint(checkpoint) +
                                           "); continue it with --resume, or delete it to start over");
  if (!have_checkpoint && a.resume)
    throw Error(ErrorCategory::io, "--resume: nothing to resume: no checkpoint " + checkpoint +
                                       (std::filesystem::exists(out) ? " (" + out + " is a finished run)" : ""));
  request.checkpoint_path = checkpoint;
  request.resume = a.resume;
  // The best rows the later stages study: the verification and validation candidates.
  if (verify)
    request.best_rows = static_cast<std::size_t>(config.verify.top_n ? static_cast<std::uint64_t>(*config.verify.top_n)
                                                                      : max_automatic_verify_count);
  if (config.validation.enabled)
    request.best_rows = std::max(request.best_rows, static_cast<std::size_t>(config.validation.top_k));
  request.results_path = out;
  request.resume_command = resume_command_for(a);
  // Progress of the sweep and of the verification (docs/cli.md "Progress").
  ProgressPrinter progress(a.quiet);
  if (progress.enabled())
    request.progress = [&progress](const SweepProgress& p) {
      progress.update(format_progress_line(p), p.done >= p.total);
    };
  SweepOutcome outcome = run_sweep(config, bars, request);
  progress.end_line();
  outcome.profile.set("seconds_load", load_seconds);

  // Verification (docs/verify.md): the top candidates again, one by one, in fp64.
  std::optional<VerificationResults> verification;
  if (verify) {
    VerifyRequest vr = verify_request_from_config(config);
    if (vr.threads == 0) vr.threads = a.threads;  // --threads bounds the whole run
    vr.progress = verification_progress(progress);
    for (const auto& [k, v] : outcome.profile.text)
      if (k == "precision") vr.sweep_precision = v;
    verification = verify_candidates(config, bars, outcome.results, vr);
    progress.end_line();
    outcome.profile.set("seconds_verify", verification->seconds);
  }

  // Validation (docs/validation.md): is the winner real?
  std::optional<ValidationResults> validation;
  if (config.validation.enabled) {
    validation = run_validation(config, bars, outcome.results, outcome.device_used, a.threads);
    outcome.profile.set("seconds_validation", validation->seconds);
  }

  // Host memory high-water mark of the run so far (Linux reports KiB).
  {
    struct rusage usage {};
    if (getrusage(RUSAGE_SELF, &usage) == 0)
      outcome.profile.set("host_peak_rss_bytes", static_cast<double>(usage.ru_maxrss) * 1024.0);
  }
  const auto t_write = Clock::now();
  {
    // All outputs or none: the CSV written aside, the checkpoint finished
    // into the results file in place, then both moved into place together,
    // the results file last.
    AtomicOutputSet outputs;
    if (!csv.empty()) write_top_k_csv(outputs.add(csv), outcome.results);
    outcome.checkpoint->finish(outcome.results, outcome.profile, verification ? &*verification : nullptr,
                               validation ? &*validation : nullptr);
    outputs.adopt(checkpoint, out);
    outputs.commit();
  }
  const double write_seconds = std::chrono::duration<double>(Clock::now() - t_write).count();
  const std::string heatmap = config.output.heatmap.size() == 2 ? draw_heatmap(config, out) : "";

  const auto& r = outcome.results;
  std::printf("%llu combos on %zu bars x %zu symbols, device %s\n", static_cast<unsigned long long>(r.n_rows()),
              bars.n_bars(), bars.n_symbols(), outcome.device_used.c_str());
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
  if (a.profile) {
    std::printf("profile:\n");
    for (const auto& [k, v] : outcome.profile.text) std::printf("  %-22s %s\n", k.c_str(), v.c_str());
    for (const auto& [k, v] : outcome.profile.numbers) std::printf("  %-22s %.6g\n", k.c_str(), v);
    std::printf("  %-22s %.6g\n", "seconds_write", write_seconds);
  }
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
