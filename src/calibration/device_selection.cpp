// `device: auto` and the check of an explicitly requested device against the
// calibration's cost model (docs/calibration.md, docs/sweep.md).

#include <kbt/calibration/calibration.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kbt {
namespace {

bool enabled(const std::vector<std::string>& spaces, const std::string& s) {
  return std::find(spaces.begin(), spaces.end(), s) != spaces.end();
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

std::string count_text(double n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", n);
  return buf;
}

std::string run_text(double combos, double bars, const Complexity& complexity) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f combos x %.0f bars, ", combos, bars);
  return buf + to_string(complexity);
}

// "cuda is faster than serial from 12345 combos" for the pair (a, b), in either
// order: oriented so that `other` is the space with the lower per-bar-combo
// cost, the one that wins large grids.
std::string break_even_text(const SpaceCostModel& a, const SpaceCostModel& b, double bars, const Complexity& complexity) {
  const bool b_wins_large = b.per_bar_combo_seconds(complexity) < a.per_bar_combo_seconds(complexity);
  const SpaceCostModel& small = b_wins_large ? a : b;
  const SpaceCostModel& large = b_wins_large ? b : a;
  const auto n = break_even_combos(small, large, bars, complexity);
  if (!n) return "break-even: " + large.space + " is not faster than " + small.space + " for any grid size";
  if (*n <= 0) return "break-even: " + large.space + " is faster than " + small.space + " for every grid size";
  return "break-even: " + large.space + " is faster than " + small.space + " from " + count_text(*n) + " combos";
}

}  // namespace

std::string conservative_device_choice(const std::vector<std::string>& spaces, double combos) {
  if (enabled(spaces, "cuda") && combos >= 10000) return "cuda";
  if (enabled(spaces, "openmp")) return "openmp";
  return "serial";
}

DeviceChoice select_device(const std::string& requested, const std::vector<std::string>& spaces,
                           const CalibrationStatus& status, double combos, double bars, const Complexity& complexity) {
  DeviceChoice c;
  std::vector<std::string> uncalibrated;
  if (status.usable()) {
    for (const auto& s : spaces) {
      const SpaceCostModel* m = status.calibration->model(s);
      if (m) c.predicted_seconds.emplace_back(s, m->predict_seconds(combos, bars, complexity));
      else uncalibrated.push_back(s);
    }
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < c.predicted_seconds.size(); ++i)
    if (c.predicted_seconds[i].second < c.predicted_seconds[best].second) best = i;
  std::string predictions;
  for (const auto& [s, t] : c.predicted_seconds) predictions += (predictions.empty() ? "" : ", ") + s + " " + seconds_text(t);
  for (const auto& s : uncalibrated) predictions += (predictions.empty() ? "" : ", ") + s + " not calibrated";

  if (requested == "auto") {
    if (!c.predicted_seconds.empty()) {
      c.device = c.predicted_seconds[best].first;
      c.rule = "cost_model";
      c.notes.push_back("device auto: predicted " + predictions + " for " + run_text(combos, bars, complexity) +
                        " (calibration " + status.location.path + ")");
      c.notes.push_back("device auto: running on " + c.device + ", the lowest predicted time");
      // Against the runner-up: where the choice would flip.
      std::size_t second = best == 0 ? 1 : 0;
      for (std::size_t i = 0; i < c.predicted_seconds.size(); ++i)
        if (i != best && c.predicted_seconds[i].second < c.predicted_seconds[second].second) second = i;
      if (c.predicted_seconds.size() >= 2)
        c.notes.push_back("device auto: " +
                          break_even_text(*status.calibration->model(c.device),
                                          *status.calibration->model(c.predicted_seconds[second].first), bars,
                                          complexity));
    } else {
      c.device = conservative_device_choice(spaces, combos);
      c.rule = "conservative";
      const std::string why =
          status.usable() ? status.location.path + " has no model for an enabled space" : status.describe();
      c.notes.push_back("device auto: no usable calibration: " + why);
      c.notes.push_back("device auto: conservative rule (cuda from 10000 combos, else openmp, else serial): " + c.device);
    }
    return c;
  }

  c.device = requested;
  c.rule = "requested";
  const SpaceCostModel* mine = status.usable() ? status.calibration->model(requested) : nullptr;
  if (!mine || c.predicted_seconds.empty()) return c;
  const double my_time = mine->predict_seconds(combos, bars, complexity);
  const auto& [best_space, best_time] = c.predicted_seconds[best];
  if (best_space != requested && best_time < my_time) {
    const SpaceCostModel* other = status.calibration->model(best_space);
    c.warning = "device '" + requested + "' is predicted slower than '" + best_space + "' for this run (" +
                run_text(combos, bars, complexity) + "): " + requested + " " + seconds_text(my_time) + ", " +
                best_space + " " + seconds_text(best_time) + "; " + break_even_text(*mine, *other, bars, complexity) +
                "; running on " + requested + " as requested";
  }
  return c;
}

}  // namespace kbt
