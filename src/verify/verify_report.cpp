// The verification summary printed by `kbt run` and `kbt verify`.

#include <kbt/validation/sharpe_statistics.hpp>
#include <kbt/verify/verify.hpp>
#include <kbt/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "output/number_format.hpp"

namespace kbt {
namespace {

std::string printf_string(const char* fmt, double a, double b = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

}  // namespace

double verification_rank_correlation(const VerificationResults& v) {
  return stats::rank_correlation(v.rank_before, v.rank_after);  // over the candidates still eligible
}

void check_no_mismatch(const VerificationResults& v, const std::string& results_path) {
  if (!v.mismatch_checked || v.n_mismatches() == 0) return;
  throw Error(ErrorCategory::verification,
              results_path + ": verification: the metrics of " + std::to_string(v.n_mismatches()) + " of " +
                  std::to_string(v.n()) +
                  " candidates differ from the sweep's (/verify/mismatch): the inputs may have changed during the run "
                  "or since it (the data file, or the results file edited), or this is a bug in kbt (please report it "
                  "with the config and data)");
}

std::string format_verification_summary(const VerificationResults& v, std::size_t show) {
  const std::size_t n = v.n();
  std::string out = "verification: " + std::to_string(n) + " candidate" + (n == 1 ? "" : "s") +
                    " re-run on the reference engine (fp64), " + std::to_string(v.threads) + " thread" +
                    (v.threads == 1 ? "" : "s") + ", " +
                    printf_string("%.3g s (%.0f/s)\n", v.seconds, v.seconds > 0 ? n / v.seconds : 0.0);
  if (!v.selection.empty()) out += "  verified:  " + v.selection + "\n";
  out += "  window:    " + v.window + (v.same_window ? " (the sweep's)" : " (differs from the sweep's)") + "\n";
  out += "  objective: " + v.objective.metric + " (" + (v.objective.maximize ? "max" : "min") +
         ", min_trades " + detail::format_table_number(v.objective.min_trades) + ")\n";
  if (v.mismatch_checked) {
    out += "  mismatches: " + std::to_string(v.n_mismatches()) + " of " + std::to_string(n) +
           (v.n_mismatches() == 0 ? " (every sweep metric reproduced bit for bit)\n"
                                  : " (verified fp64 metrics differ from the sweep's)\n");
  } else {
    out += std::string("  mismatches: not checked (") +
           (v.same_window ? "the sweep ran in " + v.sweep_precision : std::string("the window differs from the sweep's")) +
           ")\n";
  }
  if (v.rank_checked)
    out += "  rank moved by more than " + std::to_string(v.rank_threshold) + ": " + std::to_string(v.n_rank_moved()) +
           " of " + std::to_string(n) + "\n";
  std::size_t still_eligible = 0, kept = 0;
  const std::size_t top = std::min<std::size_t>(10, n);
  for (std::size_t i = 0; i < n; ++i) {
    still_eligible += v.rank_after[i] > 0;
    kept += v.rank_before[i] <= top && v.rank_after[i] > 0 && v.rank_after[i] <= top;
  }
  if (n > 0)
    out += "  ranks: Spearman " + detail::format_table_number(verification_rank_correlation(v)) + " over " +
           std::to_string(still_eligible) + " still-eligible candidates; top " + std::to_string(top) +
           " kept: " + std::to_string(kept) + " of " + std::to_string(top) + "\n";

  // The best candidates by verified rank, with where the sweep had them.
  std::vector<std::size_t> by_after;
  for (std::size_t i = 0; i < n; ++i)
    if (v.rank_after[i] > 0) by_after.push_back(i);
  std::sort(by_after.begin(), by_after.end(), [&](std::size_t a, std::size_t b) { return v.rank_after[a] < v.rank_after[b]; });
  if (by_after.size() > show) by_after.resize(show);
  if (by_after.empty()) return out;
  const int metric = metric_index(v.objective.metric);
  const std::size_t n_params = v.param_names.size();
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"rank after", "before", "combo"};
  for (const auto& p : v.param_names) header.push_back(p);
  header.push_back(v.objective.metric + " sweep");
  header.push_back(v.objective.metric + " verified");
  header.push_back("flags");
  rows.push_back(header);
  for (const std::size_t i : by_after) {
    std::vector<std::string> line{std::to_string(v.rank_after[i]), std::to_string(v.rank_before[i]),
                                  std::to_string(v.combo_ids[i])};
    for (std::size_t p = 0; p < n_params; ++p) line.push_back(detail::format_table_number(v.params[i * n_params + p]));
    const bool have_sweep = v.sweep_metrics.size() == v.metrics.size();
    line.push_back(metric >= 0 && have_sweep ? detail::format_table_number(v.sweep_metrics[i * n_metrics + metric]) : "");
    line.push_back(metric >= 0 ? detail::format_table_number(v.metrics[i * n_metrics + metric]) : "");
    std::string flags;
    if (v.mismatch[i]) flags += "mismatch";
    if (v.rank_moved[i]) flags += std::string(flags.empty() ? "" : ",") + "rank_moved";
    line.push_back(flags);
    rows.push_back(line);
  }
  return out + detail::format_table(rows);
}

}  // namespace kbt
