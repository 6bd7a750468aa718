#include <kbt/core/error.hpp>
#include <kbt/sweep/top_k.hpp>

#include <algorithm>

namespace kbt {

bool eligible(const double* row, const Objective& objective) {
  return objective_eligible(row[metric_index(objective.metric)], row[static_cast<int>(Metric::n_trades)],
                            static_cast<double>(objective.min_trades));
}

std::vector<std::size_t> select_top_k(const std::vector<double>& metrics,
                                      const std::vector<std::uint64_t>& combo_ids,
                                      const Objective& objective, std::size_t k) {
  const int m = metric_index(objective.metric);
  if (m < 0) throw Error(ErrorCategory::config, "unknown objective metric '" + objective.metric + "'");
  const std::size_t n_rows = combo_ids.size();
  std::vector<std::size_t> rows;
  rows.reserve(n_rows);
  for (std::size_t r = 0; r < n_rows; ++r)
    if (eligible(&metrics[r * n_metrics], objective)) rows.push_back(r);

  auto better = [&](std::size_t a, std::size_t b) {
    const double va = metrics[a * n_metrics + m], vb = metrics[b * n_metrics + m];
    if (va != vb) return objective.maximize ? va > vb : va < vb;
    return combo_ids[a] < combo_ids[b];
  };
  const std::size_t keep = std::min(k, rows.size());
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(keep), rows.end(), better);
  rows.resize(keep);
  return rows;
}

}  // namespace kbt
