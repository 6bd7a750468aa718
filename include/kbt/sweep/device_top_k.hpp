#pragma once
// Top-K selection on the execution space that holds the metrics (docs/sweep.md), in
// the exact order of kbt::select_top_k: objective value best first, then combo
// id ascending; rows whose objective is NaN or that fail min_trades are never
// selected.
//
// Each row gets a 64-bit key that orders it by objective (detail/top_k_keys.hpp).
// Two ways select the K best keys:
// - bisection: the K-th best key is found by bisection over the key bits with
//   parallel counts (64 passes over the rows at most, then 64 more over combo
//   ids only when ties straddle the cut); one scan compacts the K rows. Only
//   those K rows are ordered, on the host, and uploaded: nothing of size
//   n_combos leaves the device.
// - partial sort on the host: where the host can read the keys, one host thread
//   partially sorts the eligible rows. Each of the bisection's counts forks and
//   joins the host's threads (a few microseconds, however few the rows), so
//   this is the default there.

#include <kbt/config/run_config.hpp>
#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/detail/top_k_keys.hpp>
#include <kbt/sweep/top_k.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace kbt {
namespace detail {

template <class KeyView, class IdView>
struct CountSelected {
  KeyView keys;
  IdView ids;
  std::uint64_t key_cut;  // rows with key > key_cut ...
  std::uint64_t tie_key;  // ... and rows with key == tie_key and id <= id_cut (when tie_key != 0)
  std::uint64_t id_cut;
  KOKKOS_INLINE_FUNCTION bool selected(const int r) const {
    const std::uint64_t k = keys(r);
    if (k == 0) return false;
    if (k > key_cut) return true;
    return tie_key != 0 && k == tie_key && std::uint64_t(ids(r)) <= id_cut;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int r, std::size_t& count) const { count += selected(r) ? 1 : 0; }
};

template <class KeyView, class IdView, class RowView>
struct CompactSelected {
  CountSelected<KeyView, IdView> select;
  RowView rows;
  KOKKOS_INLINE_FUNCTION void operator()(const int r, std::size_t& offset, const bool final) const {
    if (!select.selected(r)) return;
    if (final) rows(offset) = r;
    offset += 1;
  }
};

// Keys and ids of the compacted rows.
template <class KeyView, class IdView, class RowView>
struct GatherSelected {
  RowView rows;
  KeyView keys, out_keys;
  IdView ids;
  KeyView out_ids;
  KOKKOS_INLINE_FUNCTION void operator()(const int j) const {
    out_keys(j) = keys(rows(j));
    out_ids(j) = std::uint64_t(ids(rows(j)));
  }
};

}  // namespace detail

// How select_top_k_on finds the K best rows (both give select_top_k's rows and
// order). automatic: the partial sort where the host can read the space's
// memory, the bisection elsewhere. Tests name each one to run both on host.
enum class TopKMethod { automatic, bisection, host_partial_sort };

namespace detail {

// Host threads read the space's memory: the test of a host space that the
// sweep kernel makes (SweepFunctor::host_space).
template <class ExecSpace>
constexpr bool host_reads_memory_of() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
}

// The eligible rows (key != 0), best k first, by one host thread.
template <class ExecSpace, class KeyView, class IdView>
Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> top_k_by_partial_sort(const KeyView& keys,
                                                                                   const IdView& combo_ids,
                                                                                   std::size_t k) {
  const std::size_t n = keys.extent(0);
  std::vector<std::int64_t> rows;
  rows.reserve(n);
  for (std::size_t r = 0; r < n; ++r)
    if (keys(r) != 0) rows.push_back(static_cast<std::int64_t>(r));
  const std::size_t keep = std::min(k, rows.size());
  std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(keep), rows.end(),
                    [&](std::int64_t a, std::int64_t b) {
                      return ranks_before(keys(a), std::uint64_t(combo_ids(a)), keys(b), std::uint64_t(combo_ids(b)));
                    });
  Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> ranked("kbt::topk", keep);
  for (std::size_t j = 0; j < keep; ++j) ranked(j) = rows[j];
  return ranked;
}

// The k best rows by bisection over the keys (see the file's comment).
template <class ExecSpace, class KeyView, class IdView>
Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> top_k_by_bisection(const ExecSpace& exec,
                                                                                const KeyView& keys,
                                                                                const IdView& combo_ids,
                                                                                std::size_t k) {
  using RowView = Kokkos::View<std::int64_t*, typename ExecSpace::memory_space>;
  const int n = static_cast<int>(keys.extent(0));
  const Kokkos::RangePolicy<ExecSpace> rows_policy(exec, 0, n);
  using Count = CountSelected<KeyView, IdView>;
  auto count = [&](std::uint64_t key_cut, std::uint64_t tie_key, std::uint64_t id_cut) {
    std::size_t c = 0;
    Kokkos::parallel_reduce("kbt::topk_count", rows_policy, Count{keys, combo_ids, key_cut, tie_key, id_cut}, c);
    return c;  // a scalar result: the reduction has completed
  };

  // Largest cut T with #(key >= T) >= k, i.e. #(key > T - 1) >= k.
  const std::size_t eligible = count(0, 0, 0);
  const std::size_t keep = std::min(k, eligible);
  Count final_select{keys, combo_ids, 0, 0, 0};
  if (keep > 0 && keep < eligible) {
    std::uint64_t lo = 1, hi = ~std::uint64_t(0);  // invariant: #(key >= lo) >= keep
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2 + 1;
      if (count(mid - 1, 0, 0) >= keep) lo = mid;
      else hi = mid - 1;
    }
    const std::uint64_t cut = lo;
    const std::size_t above = count(cut, 0, 0);  // key > cut: fewer than keep
    final_select.key_cut = cut;
    if (above < keep) {
      // Ties at the cut: the smallest ids among key == cut.
      const std::size_t need = keep - above;
      std::uint64_t ilo = 0, ihi = ~std::uint64_t(0);  // smallest X with #(ties, id <= X) >= need
      while (ilo < ihi) {
        const std::uint64_t mid = ilo + (ihi - ilo) / 2;
        if (count(~std::uint64_t(0), cut, mid) >= need) ihi = mid;
        else ilo = mid + 1;
      }
      final_select.tie_key = cut;
      final_select.id_cut = ilo;
    }
  }
  RowView selected("kbt::topk_selected", keep);
  if (keep > 0)
    Kokkos::parallel_scan("kbt::topk_compact", rows_policy,
                          CompactSelected<KeyView, IdView, RowView>{final_select, selected});
  exec.fence();

  // Order the k rows on the host.
  auto host_rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), selected);
  KeyView sel_keys("kbt::topk_sel_keys", keep);
  KeyView sel_ids("kbt::topk_sel_ids", keep);
  {
    Kokkos::parallel_for("kbt::topk_gather", Kokkos::RangePolicy<ExecSpace>(exec, 0, static_cast<int>(keep)),
                         GatherSelected<KeyView, IdView, RowView>{selected, keys, sel_keys, combo_ids, sel_ids});
    exec.fence();
  }
  auto host_keys = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sel_keys);
  auto host_ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sel_ids);
  std::vector<std::size_t> order(keep);
  for (std::size_t j = 0; j < keep; ++j) order[j] = j;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ranks_before(host_keys(a), host_ids(a), host_keys(b), host_ids(b));
  });
  RowView ranked("kbt::topk", keep);
  auto host_ranked = Kokkos::create_mirror_view(ranked);
  for (std::size_t j = 0; j < keep; ++j) host_ranked(j) = host_rows(order[j]);
  Kokkos::deep_copy(exec, ranked, host_ranked);
  exec.fence();
  return ranked;
}

}  // namespace detail

// Rows [0, n) of `metrics` ([row][n_metrics]) with their combo ids; returns up
// to k row indices, best first, in a View of `exec`'s memory space.
template <class ExecSpace, class MetricsView, class IdView>
Kokkos::View<std::int64_t*, typename ExecSpace::memory_space> select_top_k_on(
    const ExecSpace& exec, const MetricsView& metrics, const IdView& combo_ids, const Objective& objective,
    std::size_t k, TopKMethod method = TopKMethod::automatic) {
  using KeyView = Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space>;
  const int m = metric_index(objective.metric);
  if (m < 0) throw Error(ErrorCategory::config, "unknown objective metric '" + objective.metric + "'");
  const int n = static_cast<int>(metrics.extent(0));
  KeyView keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::topk_keys")), std::size_t(n));
  Kokkos::parallel_for("kbt::topk_keys", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
                       detail::ObjectiveKeys<MetricsView, KeyView>{metrics, keys, m, double(objective.min_trades),
                                                                    objective.maximize ? 1 : 0});
  if constexpr (detail::host_reads_memory_of<ExecSpace>()) {
    if (method != TopKMethod::bisection) {
      exec.fence();  // the keys are read on the host
      return detail::top_k_by_partial_sort<ExecSpace>(keys, combo_ids, k);
    }
  } else if (method == TopKMethod::host_partial_sort) {
    throw Error(ErrorCategory::unsupported, "top-K by host partial sort: the host cannot read this space's memory");
  }
  return detail::top_k_by_bisection(exec, keys, combo_ids, k);
}

}  // namespace kbt
