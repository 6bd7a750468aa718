// The fp32 ranking check: an fp64 engine on a sample of the combos.

#include "sweep/fp32_ranking_check.hpp"

#include <kbt/config/param_grid.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/sweep_engine.hpp>
#include <kbt/sweep/top_k.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kbt::detail {
namespace {

// Spearman rank correlation (average ranks for ties) of two series.
double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<std::size_t> idx(v.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (std::size_t k = 0; k < idx.size();) {
      std::size_t e = k;
      while (e + 1 < idx.size() && v[idx[e + 1]] == v[idx[k]]) ++e;
      for (std::size_t j = k; j <= e; ++j) r[idx[j]] = 0.5 * static_cast<double>(k + e);
      k = e + 1;
    }
    return r;
  };
  const auto ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(ra.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) ma += ra[i], mb += rb[i];
  ma /= n, mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

}  // namespace

void check_fp32_ranking(const PreparedSweep& sweep, const BarData& bars, const std::string& device,
                        const KernelSweepOptions& options, const Objective& objective, const ResultRows& rows32,
                        RunProfile& profile) {
  const std::size_t n = sweep.n_combos();
  if (n == 0) return;
  const std::size_t m = std::min<std::size_t>(n, 512);
  const std::vector<std::uint64_t> rows = sample_positions(n, m, 17);
  const PreparedSweep sample = sweep.subset(rows);
  const std::vector<double> metrics32 = read_rows(rows32, rows).metrics;  // [k][n_metrics], sample order
  const auto engine = make_kernel_engine(sample, bars, device, false, options);
  const std::vector<double> f64 = engine->run(0, rows.size(), {}, EngineTopK{objective, 0}).metrics;
  const int obj = metric_index(objective.metric);
  std::vector<double> a, b;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const double x = metrics32[k * n_metrics + static_cast<std::size_t>(obj)];
    const double y = f64[k * n_metrics + static_cast<std::size_t>(obj)];
    if (std::isnan(x) || std::isnan(y)) continue;
    a.push_back(x), b.push_back(y);
  }
  if (a.size() >= 2) profile.set("fp32_spearman_vs_fp64", spearman(a, b));
  std::vector<double> m32;
  std::vector<std::uint64_t> sample_ids;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    m32.insert(m32.end(), metrics32.begin() + static_cast<long>(k * n_metrics),
               metrics32.begin() + static_cast<long>((k + 1) * n_metrics));
    sample_ids.push_back(rows[k]);
  }
  const std::size_t k = std::max<std::size_t>(1, std::min<std::size_t>(rows.size() / 10, 50));
  const auto top32 = select_top_k(m32, sample_ids, objective, k);
  const auto top64 = select_top_k(f64, sample_ids, objective, k);
  std::size_t overlap = 0;
  for (auto x : top32) overlap += static_cast<std::size_t>(std::count(top64.begin(), top64.end(), x));
  if (!top64.empty()) profile.set("fp32_topk_overlap", static_cast<double>(overlap) / static_cast<double>(top64.size()));
  profile.set("fp32_check_sample", static_cast<double>(rows.size()));
}

}  // namespace kbt::detail
