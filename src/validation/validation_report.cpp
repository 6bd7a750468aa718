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
    out += "  PBO: " + percent(v.pbo->pbo) + " over " + std::to_string(v.pbo->splits) + " splits of " +
           std::to_string(v.pbo->blocks) + " blocks; P(OOS loss) " + percent(v.pbo->prob_oos_loss) +
           "; degradation slope " + num(v.pbo->degradation_slope) + "\n";
  else
    out += "  PBO: not computed (" + v.pbo_skipped + ")\n";
  if (v.test)
    out += "  in sample vs held out: Spearman " + num(v.rank_correlation) + " over the candidates eligible on both\n";
  const int metric = metric_index(v.objective.metric);
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
  return out;
}

}  // namespace kbt
