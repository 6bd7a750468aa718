#include <kbt/data_io.hpp>
#include <kbt/error.hpp>
#include <kbt/execution_spaces.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/param_grid.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep.hpp>
#include <kbt/top_k.hpp>
#include <kbt/version.hpp>

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

// Decides where the sweep runs. Only the reference engine can run sweeps in
// this version; an explicit Kokkos space is refused with the reason rather
// than silently replaced.
std::string choose_device(const std::string& requested, std::optional<std::string>& fallback_reason) {
  if (requested == "reference") return requested;
  if (requested == "auto") {
    fallback_reason = "unsupported:no_sweep_kernel";
    return "reference";
  }
  bool enabled = false;
  for (const auto& s : enabled_execution_spaces()) enabled = enabled || s.name == requested;
  if (!enabled)
    throw Error(ErrorCategory::unsupported, "device '" + requested + "' is not enabled in this build of kbt " +
                                                "(enabled: " + enabled_space_list() + ")");
  throw Error(ErrorCategory::unsupported,
              "device '" + requested + "': the Kokkos sweep kernel is not part of this version of kbt " +
                  "(unsupported:no_sweep_kernel); run with --device reference");
}

}  // namespace

BarData load_run_data(const RunConfig& config) { return load_bars_hdf5(config.data_path, config.symbols); }

SweepOutcome run_sweep(const RunConfig& config, const BarData& bars, const SweepRequest& request) {
  SweepOutcome outcome;
  const std::string requested = request.device.empty() ? config.sweep.device : request.device;
  outcome.device_used = choose_device(requested, outcome.fallback_reason);
  if (outcome.fallback_reason && !request.quiet)
    std::fprintf(stderr, "kbt: warning: device '%s' runs on the reference engine: %s\n", requested.c_str(),
                 outcome.fallback_reason->c_str());

  const auto t_compile = Clock::now();
  const Program program = compile_strategy(config.strategy, schema_of(bars));
  const ParamGrid grid(config.strategy.params);
  std::vector<std::uint64_t> ids =
      filter_combos(grid, [&](const double* values) { return constraints_hold(program, values); });
  if (request.sample) ids = sample_combos(ids, *request.sample, request.sample_seed);
  const double compile_seconds = seconds_since(t_compile);

  SweepResults& r = outcome.results;
  const std::size_t n = ids.size(), n_params = grid.n_params();
  for (std::size_t p = 0; p < n_params; ++p) r.param_names.push_back(grid.axis(p).name);
  r.combo_ids = ids;
  r.params.assign(n * n_params, 0.0);
  r.metrics.assign(n * n_metrics, 0.0);
  for (std::size_t i = 0; i < n; ++i) grid.combo_values(ids[i], &r.params[i * n_params]);

  // Resolved once: the simulator would otherwise infer it again for every combo.
  SimulationSettings sim_settings = config.simulation;
  sim_settings.periods_per_year = resolve_periods_per_year(bars, sim_settings);

  const auto t_sweep = Clock::now();
  detail::host_parallel_for(n, detail::resolve_thread_count(request.threads), [&](std::size_t i) {
    const double* values = &r.params[i * n_params];
    const StrategyOutputs signals = evaluate_strategy_reference(program, bars, values);
    const SimulationResult sim = simulate_reference(bars, sim_settings, signals);
    std::copy(sim.metrics.begin(), sim.metrics.end(), r.metrics.begin() + static_cast<std::ptrdiff_t>(i * n_metrics));
  });
  const double sweep_seconds = seconds_since(t_sweep);

  const auto t_topk = Clock::now();
  r.objective_metric = config.sweep.objective.metric;
  r.maximize = config.sweep.objective.maximize;
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
  prof.set("precision", "fp64");
  if (outcome.fallback_reason) prof.set("fallback_reason", *outcome.fallback_reason);
  prof.set("combos", static_cast<double>(n));
  prof.set("combos_in_grid", static_cast<double>(grid.n_combos()));
  prof.set("bars", static_cast<double>(bars.n_bars()));
  prof.set("symbols", static_cast<double>(bars.n_symbols()));
  if (request.sample) prof.set("sample_seed", std::to_string(request.sample_seed));  // text: exact for any uint64
  prof.set("threads", static_cast<double>(detail::resolve_thread_count(request.threads)));
  prof.set("seconds_compile", compile_seconds);
  prof.set("seconds_sweep", sweep_seconds);
  prof.set("seconds_topk", topk_seconds);
  prof.set("combos_per_second", sweep_seconds > 0 ? n / sweep_seconds : 0.0);
  prof.set("bar_combos_per_second",
           sweep_seconds > 0 ? static_cast<double>(n) * static_cast<double>(bars.n_bars()) / sweep_seconds : 0.0);
  return outcome;
}

}  // namespace kbt
