// The action-driven simulation job (docs/simulate.md "The simulate job"):
// its actions read or drawn, then simulated on one engine.

#include <kbt/simulate/simulate_job.hpp>

#include <hdf5.h>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>

#include <chrono>
#include <filesystem>

#include "data/hdf5_storage_checks.hpp"
#include "data/hdf5_support.hpp"
#include "data/isolated_read.hpp"
#include "data/portable_random.hpp"

namespace kbt {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The read itself, in whichever process runs it.
Actions read_actions_here(const std::string& path, const std::string& dataset) {
  detail::SilenceHdf5Errors quiet;
  const auto fail = [&](const std::string& why) {
    throw Error(ErrorCategory::data_format, path + ": /" + dataset + ": " + why);
  };
  if (H5Fis_hdf5(path.c_str()) <= 0) throw Error(ErrorCategory::data_format, path + ": not an HDF5 file (or unreadable)");
  detail::H5Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid())
    throw Error(ErrorCategory::data_format, path + ": cannot open as HDF5 (file is corrupt or truncated)");
  if (H5Lexists(file, dataset.c_str(), H5P_DEFAULT) <= 0) fail("no such dataset (simulate.dataset names it)");
  detail::H5Id set(H5Dopen2(file, dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (!set.valid()) fail("not a dataset");
  detail::H5Id type(H5Dget_type(set), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type);
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) fail("actions are numbers; this is " + detail::describe_h5_type(type));
  detail::H5Id space(H5Dget_space(set), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank != 2 && rank != 3) fail("actions are [trials][symbols][bars] (or [trials][bars] for one symbol)");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (H5Sget_simple_extent_dims(space, dims.data(), nullptr) != rank) fail("cannot read its shape (file is corrupt)");
  // A damaged shape must not reach the allocator (nor wrap around size_t):
  // the elements as stored must fit the file, as float64 this machine's memory.
  double elements = 1;
  for (const hsize_t d : dims) elements *= static_cast<double>(d);
  detail::H5Id dcpl(H5Dget_create_plist(set), H5Pclose);
  const bool filtered = dcpl.valid() && H5Pget_nfilters(dcpl) > 0;
  detail::check_declared_bytes(set, elements * static_cast<double>(H5Tget_size(type)), filtered,
                               "dataset /" + dataset, path, elements * sizeof(double));
  // Storage that disagrees with the shape makes libhdf5 read past its own
  // buffers (fuzz_actions: a 2,048-byte chunk indexed as 44 raw bytes), as in
  // data files.
  detail::check_storage_fits_file(set, path, "/" + dataset);
  detail::check_storage_holds_extent(set, dims, H5Tget_size(type), path, "/" + dataset);
  Actions a;
  a.n_trials = dims[0];
  a.n_symbols = rank == 3 ? dims[1] : 1;
  a.n_bars = dims.back();
  a.values.resize(a.n_trials * a.n_symbols * a.n_bars);
  if (!a.values.empty() && H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.values.data()) < 0)
    fail("cannot be read (corrupt, or compressed with a filter this HDF5 lacks)");
  return a;
}

}  // namespace

Actions read_actions_hdf5(const std::string& path, const std::string& dataset) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(ErrorCategory::io, path + ": cannot read the actions file: no such file");
  // In the reader process that market data use (docs/data-format.md "Reading
  // untrusted files"): a libhdf5 crash on a corrupt file is an error, not the
  // end of kbt. The shape travels as the bar axis, the values as one column.
  MarketData m = detail::read_isolated(path, [&](detail::MarketDataSink& sink) {
    Actions a = read_actions_here(path, dataset);
    sink.bars_axis({static_cast<std::int64_t>(a.n_trials), static_cast<std::int64_t>(a.n_symbols),
                    static_cast<std::int64_t>(a.n_bars)},
                   {}, {});
    sink.column("actions", std::move(a.values));
  });
  const auto& shape = m.bars.timestamps;
  if (shape.size() != 3 || m.bars.columns.count("actions") == 0)
    throw Error(ErrorCategory::internal, path + ": the actions reader sent no actions");
  Actions a;
  a.n_trials = static_cast<std::size_t>(shape[0]);
  a.n_symbols = static_cast<std::size_t>(shape[1]);
  a.n_bars = static_cast<std::size_t>(shape[2]);
  a.values = std::move(m.bars.columns.at("actions"));
  if (a.values.size() != a.n_trials * a.n_symbols * a.n_bars)
    throw Error(ErrorCategory::internal, path + ": the actions reader sent a shape its values do not fill");
  return a;
}

Actions random_policy_actions(std::size_t trials, std::size_t symbols, std::size_t bars, std::uint64_t seed,
                              std::size_t hold, ActionKind kind) {
  static constexpr double exposures[5] = {-1.0, -0.5, 0.0, 0.5, 1.0};
  Actions a{std::vector<double>(trials * symbols * bars), trials, symbols, bars};
  detail::Xoshiro256 rng(seed);
  for (std::size_t row = 0; row < trials * symbols; ++row) {
    double action = 0;
    for (std::size_t b = 0; b < bars; ++b) {
      if (b % hold == 0)
        action = kind == ActionKind::exposure ? exposures[rng.next() % 5] : static_cast<double>(rng.next() % 3);
      a.values[row * bars + b] = action;
    }
  }
  return a;
}

ActionSettings simulate_job_settings(const RunConfig& config) {
  const SimulateSettings& s = config.simulate;
  ActionSettings a;
  a.kind = s.kind == "discrete" ? ActionKind::discrete : ActionKind::exposure;
  a.cash_reserve = s.cash_reserve;
  a.spread_bps = s.spread_bps;
  return a;
}

Actions simulate_job_actions(const RunConfig& config, const BarData& bars) {
  const SimulateSettings& s = config.simulate;
  const ActionSettings settings = simulate_job_settings(config);
  Actions a = s.random_trials > 0
                  ? random_policy_actions(static_cast<std::size_t>(s.random_trials), bars.n_symbols(), bars.n_bars(),
                                          s.random_seed, static_cast<std::size_t>(s.random_hold), settings.kind)
                  : read_actions_hdf5(s.actions_path, s.actions_dataset);
  try {
    check_actions(a.matrix(), bars, settings);
  } catch (const Error& e) {
    throw Error(e.category(), (s.random_trials > 0 ? config.where("simulate.random") : s.actions_path + ": /" + s.actions_dataset) +
                                  ": " + e.what());
  }
  return a;
}

SimulateJobResult run_simulate_job(const RunConfig& config, const BarData& bars, const std::string& device,
                                   const ActionMatrix* given) {
  if (config.job != Job::simulate) throw Error(ErrorCategory::internal, config.source_path + ": not a simulate job");
  SimulateJobResult r;
  r.device = choose_job_device(device.empty() ? config.simulate.device : device);
  r.settings = simulate_job_settings(config);
  const SimulateSettings& s = config.simulate;
  const auto t0 = Clock::now();
  Actions loaded;
  if (given) {
    try {
      check_actions(*given, bars, r.settings);
    } catch (const Error& e) {
      throw Error(e.category(), std::string("actions: ") + e.what());
    }
  } else {
    loaded = simulate_job_actions(config, bars);
  }
  const ActionMatrix actions = given ? *given : loaded.matrix();
  r.seconds_actions = seconds_since(t0);
  ResolvedSimulation sim;
  try {
    sim = resolve_simulation(with_spread(config.simulation, s.spread_bps), bars);
  } catch (const Error& e) {
    throw Error(e.category(), config.source_path + ": " + e.what());
  }
  RewardSettings rewards;
  rewards.kind = s.reward == "pnl" ? RewardKind::pnl
                 : s.reward == "differential_sharpe" ? RewardKind::differential_sharpe
                                                     : RewardKind::log_return;
  rewards.eta = s.eta;
  const auto t1 = Clock::now();
  r.trials = simulate_actions_on(r.device, bars, sim, actions, r.settings, s.per_bar, rewards);
  r.seconds_simulate = seconds_since(t1);
  return r;
}

}  // namespace kbt
