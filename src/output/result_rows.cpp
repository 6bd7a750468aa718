// Rows of a sweep, read a block at a time (include/kbt/output/result_rows.hpp).

#include <kbt/output/result_rows.hpp>

#include <kbt/core/error.hpp>

#include <algorithm>
#include <numeric>

namespace kbt {

void RowTable::append(std::uint64_t row, std::uint64_t combo_id, const double* row_params, const double* row_metrics) {
  rows.push_back(row);
  combo_ids.push_back(combo_id);
  params.insert(params.end(), row_params, row_params + n_params);
  metrics.insert(metrics.end(), row_metrics, row_metrics + n_metrics);
}

RowTable RowTable::first(std::size_t k) const {
  RowTable t;
  t.n_params = n_params;
  t.metric_mask = metric_mask;
  for (std::size_t i = 0; i < std::min(k, size()); ++i) t.append(rows[i], combo_ids[i], params_of(i), metrics_of(i));
  return t;
}

MemoryRows::MemoryRows(std::vector<std::string> param_names, std::vector<std::uint64_t> combo_ids,
                       std::vector<double> params, std::vector<double> metrics, MetricMask mask)
    : param_names_(std::move(param_names)), combo_ids_(std::move(combo_ids)), params_(std::move(params)),
      metrics_(std::move(metrics)), mask_(mask) {
  if (params_.size() != combo_ids_.size() * param_names_.size() || metrics_.size() != combo_ids_.size() * n_metrics)
    throw Error(ErrorCategory::internal, "MemoryRows: columns of different lengths");
}

void MemoryRows::read(std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params,
                      double* metrics) const {
  if (first > size() || count > size() - first) throw Error(ErrorCategory::internal, "MemoryRows: rows out of range");
  const std::size_t f = static_cast<std::size_t>(first), c = static_cast<std::size_t>(count), np = n_params();
  if (ids) std::copy_n(combo_ids_.begin() + static_cast<std::ptrdiff_t>(f), c, ids);
  if (params) std::copy_n(params_.begin() + static_cast<std::ptrdiff_t>(f * np), c * np, params);
  if (metrics) std::copy_n(metrics_.begin() + static_cast<std::ptrdiff_t>(f * n_metrics), c * n_metrics, metrics);
}

void for_each_row_block(const ResultRows& rows, std::size_t block, RowParts parts,
                        const std::function<void(std::uint64_t, std::uint64_t, const std::uint64_t*, const double*,
                                                 const double*)>& visit) {
  const std::uint64_t n = rows.size();
  block = std::max<std::size_t>(block, 1);
  const std::size_t np = rows.n_params();
  std::vector<std::uint64_t> ids(parts.ids ? block : 0);
  std::vector<double> params(parts.params ? block * np : 0), metrics(parts.metrics ? block * n_metrics : 0);
  for (std::uint64_t first = 0; first < n; first += block) {
    const std::uint64_t count = std::min<std::uint64_t>(block, n - first);
    rows.read(first, count, parts.ids ? ids.data() : nullptr, parts.params ? params.data() : nullptr,
              parts.metrics ? metrics.data() : nullptr);
    visit(first, count, parts.ids ? ids.data() : nullptr, parts.params ? params.data() : nullptr,
          parts.metrics ? metrics.data() : nullptr);
  }
}

RowTable read_rows(const ResultRows& rows, const std::vector<std::uint64_t>& positions) {
  const std::size_t np = rows.n_params();
  RowTable t;
  t.n_params = np;
  t.metric_mask = rows.metric_mask();
  t.rows = positions;
  t.combo_ids.resize(positions.size());
  t.params.resize(positions.size() * np);
  t.metrics.resize(positions.size() * n_metrics);
  // In ascending order, a run of neighbouring positions per read.
  std::vector<std::size_t> order(positions.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return positions[a] < positions[b]; });
  std::vector<std::uint64_t> ids;
  std::vector<double> params, metrics;
  for (std::size_t i = 0; i < order.size();) {
    const std::uint64_t lo = positions[order[i]];
    std::size_t j = i + 1;
    while (j < order.size() && positions[order[j]] - positions[order[j - 1]] <= 64) ++j;
    const std::uint64_t count = positions[order[j - 1]] - lo + 1;
    ids.resize(static_cast<std::size_t>(count));
    params.resize(static_cast<std::size_t>(count) * np);
    metrics.resize(static_cast<std::size_t>(count) * n_metrics);
    rows.read(lo, count, ids.data(), params.data(), metrics.data());
    for (std::size_t q = i; q < j; ++q) {
      const std::size_t at = order[q], k = static_cast<std::size_t>(positions[at] - lo);
      t.combo_ids[at] = ids[k];
      std::copy_n(params.begin() + static_cast<std::ptrdiff_t>(k * np), np,
                  t.params.begin() + static_cast<std::ptrdiff_t>(at * np));
      std::copy_n(metrics.begin() + static_cast<std::ptrdiff_t>(k * n_metrics), n_metrics,
                  t.metrics.begin() + static_cast<std::ptrdiff_t>(at * n_metrics));
    }
    i = j;
  }
  return t;
}

RowTable read_all_rows(const ResultRows& rows) {
  std::vector<std::uint64_t> all(static_cast<std::size_t>(rows.size()));
  std::iota(all.begin(), all.end(), std::uint64_t{0});
  return read_rows(rows, all);
}

void require_metric(const ResultRows& rows, const std::string& metric, const std::string& what) {
  const int m = metric_index(metric);
  if (m < 0) throw Error(ErrorCategory::config, what + ": " + unknown_metric_message(metric));
  if (has_metric(rows.metric_mask(), m)) return;
  std::string held;
  for (const auto& name : metric_names_of(rows.metric_mask())) held += (held.empty() ? "" : ", ") + name;
  throw Error(ErrorCategory::config, what + ": '" + metric +
                                         "' was not computed for every combo of this run (it computed " + held +
                                         "; the top-K rows have all 21): add it to sweep.metrics, or set "
                                         "sweep.metrics: all, and run again");
}

std::optional<std::uint64_t> find_combo_row(const ResultRows& rows, std::uint64_t combo_id) {
  std::uint64_t lo = 0, hi = rows.size();  // the row is in [lo, hi) if anywhere
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    std::uint64_t id = 0;
    rows.read(mid, 1, &id, nullptr, nullptr);
    if (id == combo_id) return mid;
    if (id < combo_id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return std::nullopt;
}

}  // namespace kbt
