#include <kbt/calibration/calibration.hpp>
#include <kbt/output/checkpoint.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/run_sweep.hpp>

#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/sweep/top_k.hpp>
#include <kbt/sweep/sweep_kernel.hpp>
#include <kbt/core/version.hpp>

#include <algorithm>
#include <cmath>

#include <chrono>
#include <filesystem>
#include <cstdio>

#include "sweep/host_parallel.hpp"

namespace kbt {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string enabled_space_list() {
  std::string list = "reference";
  for (const auto& s : enabled_execution_spaces()) list += ", " + s.name;
  return list;
}

bool space_enabled(const std::string& name) {
  for (const auto& s : enabled_execution_spaces())
    if (s.name == name) return true;
  return false;
}

std::vector<std::string> enabled_space_names() {
  std::vector<std::string> names;
  for (const auto& s : enabled_execution_spaces()) names.push_back(s.name);
  return names;
}

// Decides where the sweep runs. An explicitly requested space is never
// silently replaced: when it cannot run the program the run fails with the
// reason; when the calibration predicts another space faster, a warning names
// both predictions and the break-even. `auto` picks the lowest predicted time
// (docs/calibration.md), or the conservative rule without a calibration of this
// machine, and falls back to the reference engine with a stable reason.
std::string choose_device(const std::string& requested, const Program& program, std::size_t n_combos,
                          const BarData& bars, const SimulationSettings& sim, const SweepRequest& request,
                          std::optional<std::string>& fallback_reason, RunProfile& profile) {
  if (requested == "reference") return requested;
  const auto unsupported = sweep_kernel_unsupported(program);
  if (requested == "auto" && unsupported) {
    fallback_reason = *unsupported;
    return "reference";
  }
  if (requested != "auto") {
    if (!space_enabled(requested))
      throw Error(ErrorCategory::unsupported, "device '" + requested + "' is not enabled in this build of kbt " +
                                                  "(enabled: " + enabled_space_list() + ")");
    if (unsupported)
      throw Error(ErrorCategory::unsupported, "device '" + requested + "' cannot run this strategy (" + *unsupported +
                                                  "); run with --device reference");
  }
  const CalibrationStatus status = load_calibration_status(request.calibration, this_machine_identity());
  const StrategyComplexity complexity = strategy_complexity(program, bars.n_symbols(), sim);
  const DeviceChoice choice = select_device(requested, enabled_space_names(), status, static_cast<double>(n_combos),
                                            static_cast<double>(bars.n_bars()), complexity.work);
  if (!request.quiet) {
    for (const auto& line : choice.notes) std::fprintf(stderr, "kbt: %s\n", line.c_str());
    if (choice.warning) std::fprintf(stderr, "kbt: warning: %s\n", choice.warning->c_str());
  }
  profile.set("device_rule", choice.rule);
  profile.set("calibration", status.describe());
  profile.set("complexity_instructions", complexity.work.instructions);
  profile.set("complexity_window_reads", complexity.work.window_reads);
  for (const auto& [space, seconds] : choice.predicted_seconds) {
    profile.set("predicted_seconds_" + space, seconds);
    // To compare with seconds_hoist + seconds_sweep (the whole sweep, as calibrated).
    if (space == choice.device) profile.set("seconds_predicted", seconds);
  }
  if (choice.warning) profile.set("device_warning", *choice.warning);
  return choice.device;
}

// Spearman rank correlation (average ranks for ties) of two series.
double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<std::size_t> idx(v.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (std::size_t k = 0; k < idx.size();) {
      std::size_t e = k;
      while (e + 1 < idx.size() && v[idx[e + 1]] == v[idx[k]]) ++e;
      for (std::size_t j = k; j <= e; ++j) r[idx[j]] = 0.5 * static_cast<double>(k + e);
      k = e + 1;
    }
    return r;
  };
  const auto ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(ra.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) ma += ra[i], mb += rb[i];
  ma /= n, mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

}  // namespace

std::uint64_t resolve_checkpoint_combos(std::uint64_t configured, std::size_t n_bars, std::size_t n_symbols,
                                        const std::string& device, unsigned host_threads) {
  if (configured > 0) return configured;
  const std::uint64_t work = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(n_bars) * std::max<std::size_t>(n_symbols, 1));
  const std::uint64_t target = device == "cuda" ? (std::uint64_t(1) << 33)
                                                : (std::uint64_t(1) << 26) * std::max(1u, device == "serial" ? 1u : host_threads);
  return std::min<std::uint64_t>(std::uint64_t(1) << 22, std::max<std::uint64_t>(256, target / work));
}

BarData load_run_data(const RunConfig& config) { return load_bars_hdf5(config.data_path, config.symbols); }

SweepOutcome run_sweep(const RunConfig& config, const BarData& bars, const SweepRequest& request) {
  SweepOutcome outcome;
  const std::string requested = request.device.empty() ? config.sweep.device : request.device;
  const bool fp32 = config.sweep.precision == "fp32";

  const auto t_compile = Clock::now();
  const Program program = compile_strategy(config.strategy, schema_of(bars));
  const ParamGrid grid(config.strategy.params);
  std::vector<std::uint64_t> ids =
      filter_combos(grid, [&](const double* values) { return constraints_hold(program, values); });
  if (request.sample) ids = sample_combos(ids, *request.sample, request.sample_seed);
  const double compile_seconds = seconds_since(t_compile);

  outcome.device_used = choose_device(requested, program, ids.size(), bars, config.simulation, request,
                                      outcome.fallback_reason, outcome.profile);
  if (!request.quiet)
    std::fprintf(stderr, "kbt: %zu combos to simulate (%llu in the grid before constraints%s), %zu bars x %zu symbols, on %s\n",
                 ids.size(), static_cast<unsigned long long>(grid.n_combos()), request.sample ? ", sampled" : "",
                 bars.n_bars(), bars.n_symbols(), outcome.device_used.c_str());
  if (outcome.fallback_reason && !request.quiet)
    std::fprintf(stderr, "kbt: warning: device '%s' runs on the reference engine: %s\n", requested.c_str(),
                 outcome.fallback_reason->c_str());
  if (fp32 && outcome.device_used == "reference")
    throw Error(ErrorCategory::unsupported, "precision fp32 needs a Kokkos device; the reference engine is fp64 only");

  SweepResults& r = outcome.results;
  const std::size_t n = ids.size(), n_params = grid.n_params();
  for (std::size_t p = 0; p < n_params; ++p) r.param_names.push_back(grid.axis(p).name);
  r.combo_ids = ids;
  r.params.assign(n * n_params, 0.0);
  for (std::size_t i = 0; i < n; ++i) grid.combo_values(ids[i], &r.params[i * n_params]);

  // Resolved once for every combo and every engine (docs/semantics.md "Settings").
  const ResolvedSimulation resolved = resolve_simulation(config, bars);

  // Chunks of combos (docs/sweep.md "Checkpoint chunks"): each finished chunk
  // is committed to the checkpoint and reported to the progress callback.
  unsigned chunk_threads = detail::resolve_thread_count(request.threads);  // the reference engine's
  for (const auto& s : enabled_execution_spaces())
    if (s.name == outcome.device_used) chunk_threads = static_cast<unsigned>(std::max(1, s.concurrency));
  const std::uint64_t chunk = resolve_checkpoint_combos(
      request.checkpoint_combos ? request.checkpoint_combos : config.sweep.checkpoint_combos, bars.n_bars(),
      bars.n_symbols(), outcome.device_used, chunk_threads);
  r.metrics.assign(n * n_metrics, 0.0);

  // A kernel device's plan and runner are made before the checkpoint file, so
  // that what they refuse (an unsupported program, a memory budget too small)
  // ends the run with nothing written.
  const auto t_hoist = Clock::now();
  std::optional<SweepPlan> plan;
  std::unique_ptr<KernelSweepRunner> runner;
  KernelSweepOptions kernel_options;
  if (config.sweep.memory_budget_mb)
    kernel_options.memory_budget_bytes = static_cast<std::size_t>(*config.sweep.memory_budget_mb * 1048576.0);
  if (outcome.device_used != "reference") plan = make_sweep_plan(program, bars);
  const double hoist_plan_seconds = seconds_since(t_hoist);
  const auto t_setup = Clock::now();
  if (plan && n > 0)
    runner = make_kernel_sweep_runner(outcome.device_used, fp32, program, *plan, bars, resolved, kernel_options);
  const double setup_seconds = seconds_since(t_setup);

  std::optional<Checkpoint> checkpoint;
  if (!request.checkpoint_path.empty()) {
    const bool exists = std::filesystem::exists(request.checkpoint_path);
    if (exists && !request.resume)
      throw Error(ErrorCategory::config, request.checkpoint_path +
                                             ": the checkpoint of an unfinished run exists; resume it, or delete it to "
                                             "start over");
    if (!exists && request.resume)
      throw Error(ErrorCategory::io, request.checkpoint_path + ": no checkpoint to resume");
    if (n == 0 && request.resume)
      throw Error(ErrorCategory::config, request.checkpoint_path + ": cannot resume: this run has no combos to simulate");
  }
  if (!request.checkpoint_path.empty() && n > 0) {
    CheckpointIdentity identity = CheckpointIdentity::with_data_file(config.data_path);
    identity.config_yaml = config.source_yaml;
    identity.device = outcome.device_used;
    identity.precision = fp32 ? "fp32" : "fp64";
    identity.sample = request.sample ? std::to_string(*request.sample) : std::string("none");
    identity.sample_seed = request.sample ? std::to_string(request.sample_seed) : std::string("none");
    for (const auto& sym : config.symbols) identity.symbols += (identity.symbols.empty() ? "" : ",") + sym;
    identity.n_combos = n;
    if (request.resume)
      checkpoint.emplace(Checkpoint::resume(request.checkpoint_path, identity, r, r.metrics));
    else
      checkpoint.emplace(Checkpoint::create(request.checkpoint_path, identity, r, request.results_path,
                                            request.resume_command));
  }
  const std::size_t resumed = checkpoint ? static_cast<std::size_t>(checkpoint->combos_done()) : 0;
  if (resumed > 0 && !request.quiet)
    std::fprintf(stderr, "kbt: resuming from %s: %zu of %zu combos already done\n", request.checkpoint_path.c_str(),
                 resumed, n);
  const auto t_chunks = Clock::now();
  const auto report = [&](std::size_t done) {
    if (!request.progress) return;
    SweepProgress p;
    p.done = done, p.total = n, p.resumed = resumed, p.seconds = seconds_since(t_chunks);
    request.progress(p);
  };
  // After a chunk's metrics are in r.metrics.
  const auto finish_chunk = [&](std::size_t first, std::size_t count) {
    if (checkpoint) checkpoint->commit(first, count, &r.metrics[first * n_metrics]);
    report(first + count);
  };
  std::size_t n_chunks = 0;

  double hoist_seconds = 0;
  bool top_k_on_device = false;  // selected by the kernel's space (device_top_k.hpp)
  auto t_sweep = Clock::now();
  if (outcome.device_used == "reference") {
    // Param-free and window-only series are computed once and shared (same bits).
    ReferenceSeriesCache cache;
    report(resumed);
    for (std::size_t first = resumed; first < n; first += chunk, ++n_chunks) {
      const std::size_t count = std::min<std::size_t>(chunk, n - first);
      detail::host_parallel_for(count, detail::resolve_thread_count(request.threads), [&](std::size_t j) {
        const std::size_t i = first + j;
        const double* values = &r.params[i * n_params];
        const StrategyOutputs signals = evaluate_strategy_reference(program, bars, values, &cache);
        const SimulationResult sim = simulate_reference(bars, resolved, signals);
        std::copy(sim.metrics.begin(), sim.metrics.end(),
                  r.metrics.begin() + static_cast<std::ptrdiff_t>(i * n_metrics));
      });
      finish_chunk(first, count);
    }
  } else {
    hoist_seconds = hoist_plan_seconds;
    t_sweep = Clock::now();  // the sweep's time excludes the hoisting plan
    outcome.profile.set("hoisted_series", static_cast<double>(plan->n_hoisted_series()));
    outcome.profile.set("materialized_series", static_cast<double>(plan->materialized.size()));
    outcome.profile.set("series_bytes", static_cast<double>(plan->series_bytes(fp32 ? 4 : 8)));
    const std::size_t k_best = static_cast<std::size_t>(config.sweep.top_k);
    // The top-K of the union of per-chunk top-Ks is the global top-K: the
    // order (objective, then combo id) is total. Candidates are global rows.
    std::vector<std::size_t> candidates;
    // The checkpoint's rows, a chunk at a time (bounded extra memory), selected
    // on the host: same rows and order as the device selection
    // (tests/unit/test_top_k_device.cpp).
    for (std::size_t first = 0; first < resumed; first += chunk) {
      const std::size_t count = std::min<std::size_t>(chunk, resumed - first);
      const std::vector<double> done_metrics(r.metrics.begin() + static_cast<long>(first * n_metrics),
                                             r.metrics.begin() + static_cast<long>((first + count) * n_metrics));
      const std::vector<std::uint64_t> done_ids(r.combo_ids.begin() + static_cast<long>(first),
                                                r.combo_ids.begin() + static_cast<long>(first + count));
      for (const std::size_t row : select_top_k(done_metrics, done_ids, config.sweep.objective, k_best))
        candidates.push_back(first + row);
    }
    report(resumed);
    // Set up once (data uploaded, before the checkpoint); each chunk moves only its combos.
    double upload_seconds = setup_seconds, kernel_seconds = 0, device_topk_seconds = 0, download_seconds = 0;
    double fold_seconds = 0;
    std::size_t kernel_bytes = 0, tiles_computed = 0;
    if (runner) {
      outcome.profile.set("hoist_rows_resident", static_cast<double>(runner->hoist_rows()));
      outcome.profile.set("hoist_tiles", static_cast<double>(runner->hoist_tiles()));
      if (runner->hoist_recomputes_along_rows() && !request.quiet)
        std::fprintf(stderr,
                     "kbt: warning: the memory budget holds %zu of the %zu hoisted series, fewer than the windows of "
                     "the fastest-varying params: their series are recomputed as the rows revisit them (slow); raise "
                     "sweep.memory_budget_mb\n",
                     runner->hoist_rows(), plan->n_hoisted_series());
    }
    for (std::size_t first = resumed; first < n; first += chunk, ++n_chunks) {
      const std::size_t count = std::min<std::size_t>(chunk, n - first);
      const std::vector<double> chunk_params(r.params.begin() + static_cast<long>(first * n_params),
                                             r.params.begin() + static_cast<long>((first + count) * n_params));
      KernelTopKRequest top_k_request;
      top_k_request.objective = config.sweep.objective;
      top_k_request.k = k_best;
      top_k_request.combo_ids.assign(r.combo_ids.begin() + static_cast<long>(first),
                                     r.combo_ids.begin() + static_cast<long>(first + count));
      KernelSweepOutput kernel_out = runner->run(chunk_params, top_k_request);
      upload_seconds += kernel_out.seconds_upload;
      kernel_seconds += kernel_out.seconds_kernel;
      fold_seconds += kernel_out.seconds_hoist;
      tiles_computed += kernel_out.hoist_tiles;
      device_topk_seconds += kernel_out.seconds_topk;
      download_seconds += kernel_out.seconds_download;
      kernel_bytes = std::max(kernel_bytes, kernel_out.kernel_bytes);
      if (kernel_out.metrics.size() != count * n_metrics)
        throw Error(ErrorCategory::internal, "sweep kernel returned the wrong number of combos");
      std::copy(kernel_out.metrics.begin(), kernel_out.metrics.end(),
                r.metrics.begin() + static_cast<std::ptrdiff_t>(first * n_metrics));
      for (const std::size_t row : kernel_out.top_k) candidates.push_back(first + row);
      finish_chunk(first, count);
    }
    // Phases of the kernel device (docs/sweep.md "Run profile"): uploads include
    // the one-off setup (program, data, series) and every chunk's combos.
    outcome.profile.set("seconds_upload", upload_seconds);
    outcome.profile.set("seconds_kernel", kernel_seconds);
    outcome.profile.set("seconds_fold_kernels", fold_seconds);
    outcome.profile.set("hoist_tiles_computed", static_cast<double>(tiles_computed));
    outcome.profile.set("seconds_topk_device", device_topk_seconds);
    outcome.profile.set("seconds_download", download_seconds);
    outcome.profile.set("kernel_memory_bytes", static_cast<double>(kernel_bytes));
    {
      std::vector<double> cand_metrics;
      std::vector<std::uint64_t> cand_ids;
      cand_metrics.reserve(candidates.size() * n_metrics);
      for (const std::size_t row : candidates) {
        cand_metrics.insert(cand_metrics.end(), r.metrics.begin() + static_cast<long>(row * n_metrics),
                            r.metrics.begin() + static_cast<long>((row + 1) * n_metrics));
        cand_ids.push_back(r.combo_ids[row]);
      }
      r.top_k.clear();
      for (const std::size_t j : select_top_k(cand_metrics, cand_ids, config.sweep.objective, k_best))
        r.top_k.push_back(candidates[j]);
    }
    top_k_on_device = true;
    if (fp32 && n > 0) {
      // Ranking check: an fp64 re-run of a deterministic sample of combos.
      const std::size_t m = std::min<std::size_t>(n, 512);
      std::vector<std::uint64_t> rows(n);
      for (std::size_t i = 0; i < n; ++i) rows[i] = i;
      rows = sample_combos(rows, m, 17);
      std::vector<double> sample_params;
      for (auto row : rows)
        sample_params.insert(sample_params.end(), r.params.begin() + static_cast<long>(row * n_params),
                             r.params.begin() + static_cast<long>((row + 1) * n_params));
      const auto f64 = run_sweep_kernel_on(outcome.device_used, false, program, *plan, bars, resolved, sample_params,
                                           kernel_options);
      const int obj = metric_index(config.sweep.objective.metric);
      std::vector<double> a, b;
      for (std::size_t k = 0; k < rows.size(); ++k) {
        const double x = r.metrics[rows[k] * n_metrics + static_cast<std::size_t>(obj)];
        const double y = f64[k * n_metrics + static_cast<std::size_t>(obj)];
        if (std::isnan(x) || std::isnan(y)) continue;
        a.push_back(x), b.push_back(y);
      }
      if (a.size() >= 2) outcome.profile.set("fp32_spearman_vs_fp64", spearman(a, b));
      std::vector<double> m32, m64;
      std::vector<std::uint64_t> sample_ids;
      for (std::size_t k = 0; k < rows.size(); ++k) {
        m32.insert(m32.end(), r.metrics.begin() + static_cast<long>(rows[k] * n_metrics),
                   r.metrics.begin() + static_cast<long>((rows[k] + 1) * n_metrics));
        sample_ids.push_back(rows[k]);
      }
      const std::size_t k = std::max<std::size_t>(1, std::min<std::size_t>(rows.size() / 10, 50));
      const auto top32 = select_top_k(m32, sample_ids, config.sweep.objective, k);
      const auto top64 = select_top_k(f64, sample_ids, config.sweep.objective, k);
      std::size_t overlap = 0;
      for (auto x : top32) overlap += std::count(top64.begin(), top64.end(), x);
      if (!top64.empty()) outcome.profile.set("fp32_topk_overlap", static_cast<double>(overlap) / top64.size());
      outcome.profile.set("fp32_check_sample", static_cast<double>(rows.size()));
    }
  }
  const double sweep_seconds = seconds_since(t_sweep);

  const auto t_topk = Clock::now();
  r.objective_metric = config.sweep.objective.metric;
  r.maximize = config.sweep.objective.maximize;
  if (!top_k_on_device)
    r.top_k = select_top_k(r.metrics, r.combo_ids, config.sweep.objective,
                           static_cast<std::size_t>(config.sweep.top_k));
  const double topk_seconds = seconds_since(t_topk);

  RunProfile& prof = outcome.profile;
  prof.set("kbt_version", version_string);
  prof.set("kokkos_version", kokkos_version_string());
  prof.set("data_path", std::filesystem::absolute(config.data_path).lexically_normal().string());
  prof.set("config_path", config.source_path);
  prof.set("device", outcome.device_used);
  prof.set("device_requested", requested);
  prof.set("precision", fp32 ? "fp32" : "fp64");
  prof.set("seconds_hoist", hoist_seconds);
  if (outcome.fallback_reason) prof.set("fallback_reason", *outcome.fallback_reason);
  prof.set("combos", static_cast<double>(n));
  prof.set("combos_in_grid", static_cast<double>(grid.n_combos()));
  prof.set("bars", static_cast<double>(bars.n_bars()));
  prof.set("symbols", static_cast<double>(bars.n_symbols()));
  if (request.sample) prof.set("sample_seed", std::to_string(request.sample_seed));  // text: exact for any uint64
  prof.set("threads", static_cast<double>(detail::resolve_thread_count(request.threads)));
  prof.set("seconds_compile", compile_seconds);
  prof.set("checkpoint_combos", static_cast<double>(chunk));
  prof.set("chunks", static_cast<double>(n_chunks));
  prof.set("resumed_combos", static_cast<double>(resumed));
  prof.set("seconds_sweep", sweep_seconds);
  prof.set("seconds_topk", topk_seconds);  // host selection only; on a kernel space it is part of the sweep
  prof.set("topk_selected_on", top_k_on_device ? outcome.device_used : std::string("host"));
  // Rates count the combos this process simulated (not those of a checkpoint).
  const double simulated = static_cast<double>(n - resumed);
  prof.set("combos_per_second", sweep_seconds > 0 ? simulated / sweep_seconds : 0.0);
  prof.set("bar_combos_per_second",
           sweep_seconds > 0 ? simulated * static_cast<double>(bars.n_bars()) / sweep_seconds : 0.0);
  return outcome;
}

}  // namespace kbt
