// The validation stage's lines for the terminal (docs/validation.md).

#include <kbt/validation/validation.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "output/number_format.hpp"

namespace kbt {
namespace {

std::string num(double x) { return detail::format_table_number(x); }

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * x);
  return buf;
}

// Which configurations PBO ranked: every combo, or a sample of them.
std::string pbo_configurations(const ValidationResults& v) {
  if (v.pbo_configurations >= v.n_trials) return "all " + std::to_string(v.pbo_configurations) + " combos";
  return "a uniform sample of " + std::to_string(v.pbo_configurations) + " of " + std::to_string(v.n_trials) +
         " combos (validation.pbo_configs; seed " + std::to_string(v.pbo_sample_seed) + ")";
}

std::string window_text(const ScoringWindow& w) {
  return "[" + std::to_string(w.begin) + ", " + std::to_string(w.end) + ")";
}

// The folds, their choices and the stitched out-of-sample run.
std::string format_walk_forward(const WalkForwardResults& wf, const Objective& objective,
                                const std::vector<std::string>& param_names) {
  const auto m = static_cast<std::size_t>(metric_index(objective.metric));
  std::string out = "  walk-forward: " + std::to_string(wf.folds.size()) + " folds; " + objective.metric +
                    " out of sample (stitched " + window_text(wf.stitched) + "): " +
                    (wf.stitched_metrics.empty() ? std::string("-") : num(wf.stitched_metrics[m])) +
                    "; efficiency " + num(wf.efficiency) + "; stability " + num(wf.stability) + " (" +
                    std::to_string(wf.distinct_choices) + " distinct choices)\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"fold", "train", "test", "combo"};
  for (const auto& p : param_names) header.push_back(p);
  header.insert(header.end(), {objective.metric + " train", objective.metric + " test", "Spearman"});
  rows.push_back(header);
  for (std::size_t f = 0; f < wf.folds.size(); ++f) {
    const WalkForwardFold& fold = wf.folds[f];
    std::vector<std::string> line{std::to_string(f + 1), window_text(fold.train), window_text(fold.test)};
    if (fold.best.size() == 0) {
      line.push_back("none eligible");
      rows.push_back(line);
      continue;
    }
    line.push_back(std::to_string(fold.best.combo_ids[0]));
    for (std::size_t p = 0; p < param_names.size(); ++p) line.push_back(num(fold.best.params_of(0)[p]));
    line.insert(line.end(), {num(fold.best.metrics_of(0)[m]), num(fold.test_metrics[m]), num(fold.rank_correlation)});
    rows.push_back(line);
  }
  return out + detail::format_table(rows);
}

}  // namespace

std::string format_validation_summary(const ValidationResults& v, std::size_t show) {
  std::string out = "validation: " + std::to_string(v.n()) + " candidates by " + v.objective.metric + ", returns per " +
                    v.period + " (" + std::to_string(v.n_periods()) + " periods), " + num(v.seconds) + " s\n";
  out += "  in sample:  " + v.train_text + "\n";
  if (v.test) out += "  held out:   " + v.test_text + "\n";
  out += "  trials: " + std::to_string(v.n_trials) + " combos, mean correlation of the candidates " +
         num(v.mean_correlation) + ", effective trials " + num(v.effective_trials) + " (effective rank " +
         num(v.effective_rank) + "), expected maximum Sharpe per period " + num(v.expected_max_sharpe) + "\n";
  if (v.pbo)
    out += "  PBO: " + percent(v.pbo->pbo) + " of " + pbo_configurations(v) + " over " + std::to_string(v.pbo->splits) +
           " splits of " + std::to_string(v.pbo->blocks) + " blocks; P(OOS loss) " + percent(v.pbo->prob_oos_loss) +
           "; degradation slope " + num(v.pbo->degradation_slope) + "\n";
  else
    out += "  PBO: not computed (" + v.pbo_skipped + ")\n";
  if (v.test)
    out += "  in sample vs held out: Spearman " + num(v.rank_correlation) + " over the candidates eligible on both\n";
  const int metric = metric_index(v.objective.metric);
  if (v.walk_forward) out += format_walk_forward(*v.walk_forward, v.objective, v.param_names);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"rank", "combo"};
  for (const auto& p : v.param_names) header.push_back(p);
  header.insert(header.end(), {v.objective.metric, "sharpe/period", "PSR", "DSR", "MinTRL"});
  if (v.test) header.insert(header.end(), {v.objective.metric + " held out", "rank held out"});
  rows.push_back(header);
  for (std::size_t i = 0; i < std::min(show, v.n()); ++i) {
    std::vector<std::string> line{std::to_string(i + 1), std::to_string(v.combo_ids[i])};
    for (std::size_t p = 0; p < v.param_names.size(); ++p) line.push_back(num(v.params[i * v.param_names.size() + p]));
    line.push_back(num(v.metrics[i * n_metrics + static_cast<std::size_t>(metric)]));
    line.insert(line.end(), {num(v.sharpe[i]), num(v.psr[i]), num(v.dsr[i]), num(v.min_trl[i])});
    if (v.test) {
      line.push_back(num(v.test_metrics[i * n_metrics + static_cast<std::size_t>(metric)]));
      line.push_back(v.rank_out_of_sample[i] ? std::to_string(v.rank_out_of_sample[i]) : "-");
    }
    rows.push_back(line);
  }
  out += detail::format_table(rows);
  if (v.test) {
    // Say why a candidate has no held-out rank: the shorter window often holds
    // fewer trades than min_trades asks for.
    std::size_t unranked = 0, few_trades = 0;
    for (std::size_t i = 0; i < v.n(); ++i) {
      if (v.rank_out_of_sample[i]) continue;
      ++unranked;
      few_trades += v.test_metrics[i * n_metrics + static_cast<std::size_t>(Metric::n_trades)] < v.objective.min_trades;
    }
    if (unranked > 0)
      out += "  rank held out '-': " + std::to_string(unranked) + " of " + std::to_string(v.n()) +
             " candidates are not eligible in the held-out window (" + std::to_string(few_trades) +
             " with fewer than min_trades = " + num(v.objective.min_trades) + " trades there, " +
             std::to_string(unranked - few_trades) + " with a NaN " + v.objective.metric + ")" +
             (unranked == v.n() ? "; lower sweep.objective.min_trades or hold out more to rank them" : "") + "\n";
  }
  return out;
}

}  // namespace kbt
