// The sweep job (include/kbt/job/sweep_job.hpp): what `kbt run` and `kbt.run`
// do with a sweep config, in one place.

#include <kbt/job/sweep_job.hpp>

#include <kbt/core/atomic_output.hpp>
#include <kbt/core/error.hpp>
#include <kbt/output/checkpoint.hpp>
#include <kbt/output/run_lock.hpp>
#include <kbt/verify/verify.hpp>

#include <algorithm>
#include <chrono>
#include <sys/resource.h>

namespace kbt {
namespace {

using Clock = std::chrono::steady_clock;

// A bad verification window fails before the sweep, at its config line: the
// bound that made the window, verify's own, else the sweep's score_start.
void check_verify_window(const RunConfig& config, const BarData& bars) {
  try {
    resolve_verify_window(config, bars, verify_request_from_config(config));
  } catch (const Error& e) {
    const char* key = config.key_origins.count("verify.score_start") ? "verify.score_start"
                      : config.key_origins.count("verify.score_end") ? "verify.score_end"
                                                                      : "simulation.score_start";
    throw config.located(key, e);
  }
}

}  // namespace

SweepJobResult run_sweep_job(const RunConfig& config, const BarData& bars, const SweepJobOptions& o) {
  if (config.job != Job::sweep) throw Error(ErrorCategory::internal, config.source_path + ": not a sweep");
  if (o.resume && o.out.empty())
    throw Error(ErrorCategory::config, "resume: a run without an output path has no checkpoint to resume");
  const bool verify = o.verify && config.verify.top_n.value_or(1) > 0;
  ChunkExchange* const exchange = o.exchange;
  const bool root = !exchange || exchange->is_root();
  collectively(exchange, [&] {
    if (verify) check_verify_window(config, bars);
  });

  SweepRequest request;
  request.device = o.device;
  request.threads = o.threads;
  request.sample = o.sample;
  request.sample_seed = o.sample_seed;
  request.calibration = o.calibration;
  request.quiet = o.quiet;
  request.warn = o.warn;
  request.progress = o.progress;
  request.exchange = exchange;
  request.checkpoint_combos = o.checkpoint_combos;
  // The best rows the later stages study: the verification and validation candidates.
  if (verify)
    request.best_rows = static_cast<std::size_t>(config.verify.top_n ? static_cast<std::uint64_t>(*config.verify.top_n)
                                                                      : max_automatic_verify_count);
  if (config.validation.enabled)
    request.best_rows = std::max(request.best_rows, static_cast<std::size_t>(config.validation.top_k));

  // A validation setting that only the data can refuse (a walk-forward with no
  // whole fold) is refused before the sweep, not after it (a holdout is
  // resolved with the sweep's window).
  if (config.validation.walk_forward) collectively(exchange, [&] { resolve_walk_forward(config, bars); });

  SweepJobResult job;
  // One run per output at a time, for the run's whole life (docs/results.md
  // "Faults"); under the lock, temporaries of killed runs are orphans.
  // Shared among processes, the root owns the outputs (the others agree on
  // its checks).
  std::optional<RunLock> lock;
  if (!o.out.empty() && root) {
    job.out = o.out;
    job.csv = config.output.csv ? top_k_csv_path_for(o.out) : std::string();
    request.checkpoint_path = checkpoint_path_for(o.out);
    request.resume = o.resume;
    request.results_path = o.out;
    request.resume_command = o.resume_command;
    request.resume_option = o.resume_option;
  }
  collectively(exchange, [&] {
    if (job.out.empty()) return;
    lock.emplace(job.out);
    for (const std::string& p : {job.out, request.checkpoint_path, job.csv})
      if (!p.empty()) remove_orphaned_temporaries(p);
    check_checkpoint_presence(request.checkpoint_path, job.out, o.resume, o.resume_option);
  });
  job.sweep = run_sweep(config, bars, request);
  SweepOutcome& outcome = job.sweep;
  outcome.profile.set("seconds_load", o.seconds_load);

  // Verification (docs/verify.md): the top candidates again, one by one, in
  // fp64 (shared among processes, each re-runs its share).
  if (verify) {
    VerifyRequest vr = verify_request_from_config(config);
    if (vr.threads == 0) vr.threads = o.threads;  // the threads bound the whole run
    vr.exchange = exchange;
    if (o.progress) vr.progress = candidate_progress(o.progress);
    for (const auto& [k, v] : outcome.profile.text)
      if (k == "precision") vr.sweep_precision = v;
    job.verification = verify_candidates(config, bars, outcome.results, vr);
    outcome.profile.set("seconds_verify", job.verification->seconds);
  }
  // Validation (docs/validation.md): is the winner real? Shared among
  // processes: the candidates, the walk-forward's ranking and its folds; the
  // statistics over them are the root's.
  if (!root) {
    if (config.validation.enabled) run_validation(config, bars, outcome.results, outcome.device_used, o.threads, exchange);
    job.verification.reset();
    return job;  // the outputs are the root's
  }
  if (config.validation.enabled) {
    job.validation = run_validation(config, bars, outcome.results, outcome.device_used, o.threads, exchange);
    outcome.profile.set("seconds_validation", job.validation->seconds);
  }

  // Host memory high-water mark of the run so far (Linux reports KiB).
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) == 0)
    outcome.profile.set("host_peak_rss_bytes", static_cast<double>(usage.ru_maxrss) * 1024.0);
  if (o.out.empty()) return job;

  const auto t_write = Clock::now();
  // All outputs or none: the CSV written aside, the checkpoint finished into
  // the results file in place, then both moved into place together, the
  // results file last.
  AtomicOutputSet outputs;
  if (!job.csv.empty()) write_top_k_csv(outputs.add(job.csv), outcome.results);
  outcome.checkpoint->finish(outcome.results, outcome.profile, job.verification ? &*job.verification : nullptr,
                             job.validation ? &*job.validation : nullptr);
  outputs.adopt(request.checkpoint_path, o.out);
  outputs.commit();
  // The rows now live in the results file (the checkpoint became it).
  outcome.results.rows = read_results_hdf5(o.out).results.rows;
  job.seconds_write = std::chrono::duration<double>(Clock::now() - t_write).count();
  return job;
}

}  // namespace kbt
