// run_sweep: prepare -> device -> engine -> chunk driver -> profile
// (docs/architecture.md "A run").

#include <kbt/sweep/run_sweep.hpp>

#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/core/version.hpp>
#include <kbt/data/data_digest.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/output/checkpoint.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/sweep_driver.hpp>
#include <kbt/sweep/sweep_engine.hpp>
#include <kbt/sweep/strategy_warnings.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

#include "sweep/device_choice.hpp"
#include "sweep/fp32_ranking_check.hpp"
#include "sweep/host_parallel.hpp"

namespace kbt {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The checkpoint of the run, created or resumed (null without a path).
// Refuses a stale checkpoint without --resume and a resume without one.
std::shared_ptr<Checkpoint> open_checkpoint(const RunConfig& config, const SweepRequest& request,
                                            const PreparedSweep& sweep, const std::string& device, bool fp32,
                                            const std::string& digest) {
  if (request.checkpoint_path.empty()) return nullptr;
  const std::size_t n = sweep.n_combos();
  check_checkpoint_presence(request.checkpoint_path, request.results_path, request.resume, request.resume_option);
  if (n == 0 && request.resume)
    throw Error(ErrorCategory::config, request.checkpoint_path + ": cannot resume: this run has no combos to simulate");
  CheckpointIdentity identity = CheckpointIdentity::for_data(config.data_path, digest);
  identity.config_yaml = config.source_yaml;
  identity.device = device;
  identity.precision = fp32 ? "fp32" : "fp64";
  identity.sample = request.sample ? std::to_string(*request.sample) : std::string("none");
  identity.sample_seed = request.sample ? std::to_string(request.sample_seed) : std::string("none");
  for (const auto& sym : config.symbols) identity.symbols += (identity.symbols.empty() ? "" : ",") + sym;
  identity.n_combos = n;
  if (request.resume)
    return Checkpoint::resume(request.checkpoint_path, identity, sweep.param_names, sweep.combos, sweep.metrics);
  return Checkpoint::create(request.checkpoint_path, identity, sweep.param_names, sweep.combos, sweep.metrics,
                            request.results_path, request.resume_command);
}

// The processes of a shared sweep in the root's profile: how many, and each
// one's combos, seconds, device and hoisted series computed (docs/mpi.md "Profile").
constexpr const char* kDevices[] = {"reference", "serial", "openmp", "cuda"};

void record_ranks(ChunkExchange& exchange, const DriverResult& driven, std::size_t to_simulate, double seconds,
                  const std::string& device, RunProfile& profile) {
  int code = 0;
  for (int d = 0; d < 4; ++d)
    if (device == kDevices[d]) code = d;
  const std::vector<double> combos = exchange.gather(static_cast<double>(driven.combos));
  const std::vector<double> times = exchange.gather(seconds);
  const std::vector<double> devices = exchange.gather(static_cast<double>(code));
  const std::vector<double> series = exchange.gather(static_cast<double>(driven.phases.hoisted_series_computed));
  if (!exchange.is_root()) return;
  std::string per_rank_combos, per_rank_seconds, per_rank_devices, per_rank_series;
  for (std::size_t k = 0; k < combos.size(); ++k) {
    const char* sep = k ? "," : "";
    per_rank_combos += sep + std::to_string(static_cast<long long>(combos[k]));
    per_rank_series += sep + std::to_string(static_cast<long long>(series[k]));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", times[k]);
    per_rank_seconds += sep + std::string(buf);
    per_rank_devices += sep + std::string(kDevices[static_cast<int>(devices[k])]);
  }
  profile.set("mpi_ranks", static_cast<double>(exchange.size()));
  profile.set("mpi_rank_combos", per_rank_combos);
  profile.set("mpi_rank_seconds", per_rank_seconds);
  profile.set("mpi_rank_devices", per_rank_devices);
  profile.set("mpi_rank_hoisted_series", per_rank_series);  // 0 on the reference engine, which hoists nothing
  profile.set("mpi_combos_shared", static_cast<double>(to_simulate));
}

// Rows kept in memory (a run without a checkpoint): their metrics, chunk by chunk.
struct MemoryMetrics {
  std::vector<double> metrics;
  void commit(std::size_t first, std::size_t count, const double* m) {
    if (first * n_metrics != metrics.size()) throw Error(ErrorCategory::internal, "memory rows committed out of order");
    metrics.insert(metrics.end(), m, m + count * n_metrics);
  }
};

// Ruined combos (docs/semantics.md "Ruin": final_equity is 0 exactly when a
// combo was ruined), counted as the rows are committed.
struct RuinCount {
  static constexpr std::size_t examples = 5;
  std::uint64_t n = 0;
  std::vector<std::uint64_t> rows;
  void add(std::size_t first, std::size_t count, const double* m) {
    for (std::size_t i = 0; i < count; ++i)
      if (m[i * n_metrics + static_cast<int>(Metric::final_equity)] == 0.0) {
        if (rows.size() < examples) rows.push_back(first + i);
        n += 1;
      }
  }
};

std::string ruin_warning(const SweepOutcome& outcome, std::uint64_t n) {
  std::string ids;
  for (const std::uint64_t id : outcome.ruined_combo_ids) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
  return std::to_string(outcome.ruined) + " of " + std::to_string(n) +
         " combos were ruined (equity reached 0 at a close: combos " + ids + (outcome.ruined > outcome.ruined_combo_ids.size() ? ", ..." : "") +
         "): each stopped trading at its ruin bar, its final_equity is 0 and its metrics cover the bars up to the ruin "
         "(docs/semantics.md \"Ruin\"); max_gross_leverage or costs may be too high";
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

BarData load_run_data(const RunConfig& config) {
  return load_bars(config.data_path, config.symbols, config.external_data, config.where("symbols"));
}

void SweepRequest::warning(const std::string& message) const {
  if (warn) warn(message);
  else if (!quiet) std::fprintf(stderr, "kbt: warning: %s\n", message.c_str());
}

SweepOutcome run_sweep(const RunConfig& config, const BarData& bars, const SweepRequest& request) {
  SweepOutcome outcome;
  RunProfile& prof = outcome.profile;
  const std::string requested = request.device.empty() ? config.sweep.device : request.device;
  const bool fp32 = config.sweep.precision == "fp32";

  const auto t_compile = Clock::now();
  PrepareOptions prepare;
  prepare.sample = request.sample;
  prepare.sample_seed = request.sample_seed;
  // Shared among processes (docs/mpi.md), every step that can refuse the
  // inputs is agreed on, and the root holds the rows.
  ChunkExchange* const exchange = request.exchange;
  const bool root = !exchange || exchange->is_root();
  std::optional<PreparedSweep> prepared;
  collectively(exchange, [&] { prepared.emplace(prepare_sweep(config, bars, prepare)); });
  const PreparedSweep& sweep = *prepared;
  const double compile_seconds = seconds_since(t_compile);
  const std::size_t n = sweep.n_combos();
  for (const std::string& w : strategy_warnings(sweep.program, bars)) request.warning(w);
  if (const auto w = annualisation_warning(sweep.sim)) request.warning(*w);

  collectively(exchange, [&] {
    outcome.device_used = detail::choose_device(requested, sweep.program, n, bars, config.simulation, request,
                                                outcome.fallback_reason, prof);
    if (fp32 && outcome.device_used == "reference")
      throw Error(ErrorCategory::unsupported, "precision fp32 needs a Kokkos device; the reference engine is fp64 only");
  });
  const std::string& device = outcome.device_used;
  if (!request.quiet)
    std::fprintf(stderr,
                 "kbt: %zu combos to simulate (%llu in the grid before constraints%s), %zu bars x %zu symbols, on %s\n"
                 "kbt: metrics annualised at %.6g periods per year (%s)\n",
                 n, static_cast<unsigned long long>(sweep.combos_in_grid), request.sample ? ", sampled" : "",
                 bars.n_bars(), bars.n_symbols(), device.c_str(), sweep.sim.periods_per_year,
                 sweep.sim.periods_per_year_source.c_str());
  if (outcome.fallback_reason)
    request.warning("device '" + requested + "' runs on the reference engine: " + *outcome.fallback_reason);

  SweepResults& r = outcome.results;
  r.param_names = sweep.param_names;
  r.integer_params = integer_params_of(sweep.combos.grid(), sweep.param_names);
  r.objective_metric = config.sweep.objective.metric;
  r.maximize = config.sweep.objective.maximize;

  // Chunks of combos (docs/sweep.md "Checkpoint chunks").
  unsigned chunk_threads = detail::resolve_thread_count(request.threads);  // the reference engine's
  for (const auto& s : enabled_execution_spaces())
    if (s.name == device) chunk_threads = static_cast<unsigned>(std::max(1, s.concurrency));
  std::uint64_t chunk = resolve_checkpoint_combos(
      request.checkpoint_combos ? request.checkpoint_combos : config.sweep.checkpoint_combos, bars.n_bars(),
      bars.n_symbols(), device, chunk_threads);
  if (exchange) chunk = exchange->broadcast(chunk);  // the root's chunks (its checkpoint's)

  // The engine is made before the checkpoint file, so that what a kernel
  // engine refuses (an unsupported program, a memory budget too small) ends
  // the run with nothing written.
  KernelSweepOptions kernel_options;
  if (config.sweep.memory_budget_mb)
    kernel_options.memory_budget_bytes = static_cast<std::size_t>(*config.sweep.memory_budget_mb * 1048576.0);
  KernelEngineFacts facts;
  const bool kernel = device != "reference";
  std::unique_ptr<SweepEngine> engine;
  collectively(exchange, [&] {
    // Rows in memory (the root's): refused up front when they would not fit
    // (with a checkpoint they stream to its file instead).
    if (request.checkpoint_path.empty() && root)
      check_host_memory(config, n, resident_bytes_per_combo(sweep.n_params()), "the params and metrics");
    try {
      engine = kernel ? make_kernel_engine(sweep, bars, device, fp32, kernel_options, &facts)
                      : make_reference_engine(sweep, bars, request.threads);
    } catch (const Error& e) {  // a budget too small: point at the setting
      if (e.category() != ErrorCategory::limit || !config.sweep.memory_budget_mb) throw;
      throw config.located("sweep.memory_budget_mb", e);
    }
  });
  if (kernel) {
    prof.set("hoisted_series", static_cast<double>(facts.hoisted_series));
    prof.set("materialized_series", static_cast<double>(facts.materialized_series));
    prof.set("series_bytes", static_cast<double>(facts.series_bytes));
    if (n > 0) {
      prof.set("hoist_rows_resident", static_cast<double>(facts.hoist_rows_resident));
      prof.set("hoist_tiles", static_cast<double>(facts.hoist_tiles));
      if (facts.hoist_recomputes_along_rows)
        request.warning("the memory budget holds " + std::to_string(facts.hoist_rows_resident) + " of the " +
                        std::to_string(facts.hoisted_series) +
                        " hoisted series, fewer than the windows of the fastest-varying params: their series are "
                        "recomputed as the rows revisit them (slow); raise sweep.memory_budget_mb");
    }
  }

  const auto t_digest = Clock::now();
  const std::string digest = data_digest(bars);  // what the run computes on, by content
  const double digest_seconds = seconds_since(t_digest);
  collectively(exchange, [&] {
    if (root) outcome.checkpoint = open_checkpoint(config, request, sweep, device, fp32, digest);
  });
  const std::shared_ptr<Checkpoint>& checkpoint = outcome.checkpoint;
  MemoryMetrics memory;
  DriverOptions drive;
  drive.chunk_combos = chunk;
  drive.resumed = checkpoint ? static_cast<std::size_t>(checkpoint->combos_done()) : 0;
  if (exchange) drive.resumed = static_cast<std::size_t>(exchange->broadcast(drive.resumed));
  std::shared_ptr<const ResultRows> checkpoint_rows = checkpoint ? checkpoint->rows() : nullptr;
  drive.done_rows = checkpoint_rows.get();
  if (drive.resumed > 0 && !request.quiet)
    std::fprintf(stderr, "kbt: resuming from %s: %zu of %zu combos already done\n", request.checkpoint_path.c_str(),
                 drive.resumed, n);
  const auto t_sweep = Clock::now();
  RuinCount ruined;
  if (drive.resumed > 0 && root)
    for_each_row_block(*checkpoint_rows, 65536, RowParts{false, false, true},
                       [&](std::uint64_t first, std::uint64_t count, const std::uint64_t*, const double*,
                           const double* m) { ruined.add(first, count, m); });
  if (checkpoint)
    drive.commit = [&](std::size_t first, std::size_t count, const double* m) {
      ruined.add(first, count, m);
      checkpoint->commit(first, count, m);
    };
  else
    drive.commit = [&](std::size_t first, std::size_t count, const double* m) {
      ruined.add(first, count, m);
      memory.commit(first, count, m);
    };
  if (request.progress)
    drive.progress = [&](std::size_t done) {
      SweepProgress p;
      p.done = done, p.total = n, p.resumed = drive.resumed, p.seconds = seconds_since(t_sweep);
      request.progress(p);
    };
  const EngineTopK top_k{config.sweep.objective,
                         std::max(static_cast<std::size_t>(config.sweep.top_k), request.best_rows)};
  DriverResult driven = exchange ? drive_sweep_shared(*engine, sweep, top_k, drive, *exchange)
                                 : drive_sweep(*engine, sweep, top_k, drive);
  r.best = std::move(driven.best);
  r.top_k = std::min(static_cast<std::size_t>(config.sweep.top_k), r.best.size());
  if (exchange) record_ranks(*exchange, driven, n - drive.resumed, seconds_since(t_sweep), device, prof);
  if (!root)
    ;  // another process's share: the root holds the rows
  else if (checkpoint)
    r.rows = checkpoint_rows;
  else
    r.rows = std::make_shared<MemoryRows>(sweep.param_names, sweep.combos.ids(0, n), sweep.combos.params(0, n),
                                          std::move(memory.metrics), sweep.metrics);
  if (kernel) {
    // Phases of the kernel device (docs/sweep.md "Run profile"): uploads include
    // the one-off setup (program, data, series) and every chunk's combos.
    prof.set("seconds_upload", facts.seconds_setup + driven.phases.upload);
    prof.set("seconds_kernel", driven.phases.kernel);
    prof.set("seconds_fold_kernels", driven.phases.fold_kernels);
    prof.set("hoist_tiles_computed", static_cast<double>(driven.phases.hoist_tiles_computed));
    prof.set("hoisted_series_computed", static_cast<double>(driven.phases.hoisted_series_computed));
    prof.set("seconds_topk_device", driven.phases.top_k);
    prof.set("seconds_download", driven.phases.download);
    prof.set("kernel_memory_bytes", static_cast<double>(driven.phases.kernel_bytes));
    if (fp32 && root) detail::check_fp32_ranking(sweep, bars, device, kernel_options, config.sweep.objective, *r.rows, prof);
  }
  const double sweep_seconds = seconds_since(t_sweep);

  prof.set("kbt_version", version_string);
  prof.set("kokkos_version", kokkos_version_string());
  prof.set("data_path", data_path_for_results(config.data_path));
  prof.set("data_digest", digest);
  prof.set("seconds_data_digest", digest_seconds);
  prof.set("config_path", config.source_path);
  prof.set("device", device);
  prof.set("device_requested", requested);
  prof.set("precision", fp32 ? "fp32" : "fp64");
  prof.set("seconds_hoist", kernel ? facts.seconds_plan : 0.0);
  if (outcome.fallback_reason) prof.set("fallback_reason", *outcome.fallback_reason);
  prof.set("combos", static_cast<double>(n));
  prof.set("combos_in_grid", static_cast<double>(sweep.combos_in_grid));
  prof.set("bars", static_cast<double>(bars.n_bars()));
  prof.set("periods_per_year", sweep.sim.periods_per_year);
  prof.set("periods_per_year_source", sweep.sim.periods_per_year_source);
  prof.set("symbols", static_cast<double>(bars.n_symbols()));
  if (request.sample) prof.set("sample_seed", std::to_string(request.sample_seed));  // text: exact for any uint64
  prof.set("threads", static_cast<double>(detail::resolve_thread_count(request.threads)));
  prof.set("seconds_compile", compile_seconds);
  prof.set("checkpoint_combos", static_cast<double>(chunk));
  prof.set("chunks", static_cast<double>(driven.chunks));
  prof.set("resumed_combos", static_cast<double>(drive.resumed));
  // Only when some were: a run without a ruin writes the results file it wrote before.
  if (root && ruined.n > 0) prof.set("ruined_combos", static_cast<double>(ruined.n));
  outcome.ruined = ruined.n;
  for (const std::uint64_t row : ruined.rows) outcome.ruined_combo_ids.push_back(sweep.combos.ids(row, 1).at(0));
  if (ruined.n > 0) request.warning(ruin_warning(outcome, n));
  prof.set("seconds_sweep", sweep_seconds);
  prof.set("seconds_topk", driven.seconds_merge);  // the merge of the chunks' top-Ks (inside seconds_sweep)
  prof.set("metrics_computed", [&] {
    std::string names;
    for (const auto& m : metric_names_of(sweep.metrics)) names += (names.empty() ? "" : ",") + m;
    return names;
  }());
  prof.set("seconds_best_rows", driven.seconds_best_rows);  // the best rows' other metrics (inside seconds_sweep)
  prof.set("topk_selected_on", engine->top_k_selected_on());
  // Rates count the combos this process simulated (not those of a checkpoint).
  const double simulated = static_cast<double>(n - drive.resumed);
  prof.set("combos_per_second", sweep_seconds > 0 ? simulated / sweep_seconds : 0.0);
  prof.set("bar_combos_per_second",
           sweep_seconds > 0 ? simulated * static_cast<double>(bars.n_bars()) / sweep_seconds : 0.0);
  return outcome;
}

}  // namespace kbt
