// The `simulate` section of an action-driven simulation (docs/simulate.md
// "The simulate job"): the actions (an HDF5 file, or a random policy) and
// what the run writes.

#include "config/loader.hpp"

#include <kbt/core/error.hpp>

#include <filesystem>

namespace kbt::detail {

namespace {

const std::vector<std::string> simulate_keys = {"actions", "dataset", "random",  "kind",   "cash_reserve",
                                                "spread_bps", "per_bar", "reward", "eta", "device"};
const std::vector<std::string> random_keys = {"trials", "seed", "hold"};

}  // namespace

void Loader::simulate(const YamlEntry& e, const std::string& base_dir) {
  const auto items = doc_.entries(e, "simulate", simulate_keys);
  SimulateSettings& s = cfg_.simulate;
  const YamlEntry* actions = find_entry(items, "actions");
  const YamlEntry* random = find_entry(items, "random");
  if ((actions && random) || (!actions && !random && !given_.actions))
    doc_.fail(ErrorCategory::config, e.key,
              "simulate needs exactly one of 'actions' (an HDF5 file of actions [trials][symbols][bars]) and "
              "'random' (a random policy: {trials: N, seed: S, hold: bars})");
  if (actions) {
    note(*actions, "simulate.actions");
    std::filesystem::path p(text(*actions, "simulate.actions", "an HDF5 file path"));
    if (p.is_relative() && !base_dir.empty()) p = (std::filesystem::path(base_dir) / p).lexically_normal();
    s.actions_path = p.string();
  }
  if (random) {
    note(*random, "simulate.random");
    const auto r = doc_.entries(*random, "simulate.random", random_keys);
    const YamlEntry* trials = find_entry(r, "trials");
    if (!trials) doc_.fail(ErrorCategory::config, random->key, "simulate.random needs 'trials' (>= 1)");
    s.random_trials = integer(*trials, "simulate.random.trials", 1);
    if (const auto* seed = find_entry(r, "seed")) s.random_seed = static_cast<std::uint64_t>(integer(*seed, "simulate.random.seed", 0));
    if (const auto* hold = find_entry(r, "hold")) s.random_hold = integer(*hold, "simulate.random.hold", 1);
  }
  for (const auto& item : items) {
    const std::string what = "simulate." + item.name;
    const std::string& k = item.name;
    if (k == "actions" || k == "random") continue;
    note(item, what);
    if (k == "dataset") s.actions_dataset = text(item, what, "a dataset name in the actions file");
    else if (k == "kind") s.kind = choice(item, what, {"exposure", "discrete"});
    else if (k == "cash_reserve") {
      s.cash_reserve = number(item, what, Bound::non_negative);
      if (!(s.cash_reserve < 1)) bad(item, what, "a fraction in [0, 1) of equity kept uninvested");
    } else if (k == "spread_bps") s.spread_bps = number(item, what, Bound::non_negative);
    else if (k == "per_bar") s.per_bar = boolean(item, what);
    else if (k == "reward") s.reward = choice(item, what, {"log_return", "pnl", "differential_sharpe"});
    else if (k == "eta") {
      s.eta = number(item, what, Bound::positive);
      if (!(s.eta <= 1)) bad(item, what, "a rate in (0, 1]");
    } else if (k == "device") s.device = choice(item, what, {"auto", "reference", "serial", "openmp", "cuda"});
  }
  if (actions && find_entry(items, "dataset") == nullptr) s.actions_dataset = "actions";
  if (random && find_entry(items, "dataset"))
    doc_.fail(ErrorCategory::config, find_entry(items, "dataset")->key,
              "simulate.dataset names a dataset of the actions file; a random policy has none");
}

}  // namespace kbt::detail
