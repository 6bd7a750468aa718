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

TopRows::TopRows(Objective objective, std::size_t k, std::size_t n_params)
    : objective_(std::move(objective)), k_(k), metric_(metric_index(objective_.metric)) {
  if (metric_ < 0) throw Error(ErrorCategory::config, "unknown objective metric '" + objective_.metric + "'");
  kept_.n_params = n_params;
}

void TopRows::offer(std::uint64_t row, std::uint64_t combo_id, const double* params, const double* metrics) {
  if (k_ == 0 || !eligible(metrics, objective_)) return;
  kept_.append(row, combo_id, params, metrics);
  if (kept_.size() >= k_ + std::max<std::size_t>(k_, 1024)) prune();  // amortised
}

void TopRows::offer_block(std::uint64_t first, std::uint64_t count, const std::uint64_t* ids, const double* params,
                          const double* metrics) {
  const std::size_t np = kept_.n_params;
  for (std::uint64_t i = 0; i < count; ++i) offer(first + i, ids[i], params + i * np, metrics + i * n_metrics);
}

void TopRows::prune() const {
  const std::vector<std::size_t> order = select_top_k(kept_.metrics, kept_.combo_ids, objective_, k_);
  RowTable pruned;
  pruned.n_params = kept_.n_params;
  for (const std::size_t i : order) pruned.append(kept_.rows[i], kept_.combo_ids[i], kept_.params_of(i), kept_.metrics_of(i));
  kept_ = std::move(pruned);
}

RowTable TopRows::best() const {
  prune();
  return kept_;
}

RowTable select_top_rows(const ResultRows& rows, const Objective& objective, std::size_t k) {
  require_metric(rows, objective.metric, "ranking by '" + objective.metric + "'");
  TopRows top(objective, k, rows.n_params());
  for_each_row_block(rows, 65536, RowParts{},
                     [&](std::uint64_t first, std::uint64_t count, const std::uint64_t* ids, const double* params,
                         const double* metrics) { top.offer_block(first, count, ids, params, metrics); });
  RowTable best = top.best();
  best.metric_mask = rows.metric_mask();
  return best;
}

}  // namespace kbt
