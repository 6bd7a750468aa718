#pragma once
// The 64-bit ranking key of a combo (docs/sweep.md "Top-K on the device"): it
// orders rows like their objective (larger = better, 0 = not eligible), so that
// both selections of device_top_k.hpp compare integers, and ties are broken by
// combo id in one comparator.

#include <kbt/core/detail/portable_math.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/top_k.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kbt {
namespace detail {

// Maps a non-NaN double to an unsigned integer of the same order (-0 == +0).
KOKKOS_INLINE_FUNCTION std::uint64_t ordered_key(double v) {
  if (v == 0.0) v = 0.0;  // -0 and +0 compare equal in select_top_k
  const std::uint64_t u = portable::to_bits(v);
  const std::uint64_t sign = std::uint64_t(1) << 63;
  return (u & sign) ? ~u : (u | sign);
}

template <class MetricsView, class KeyView>
struct ObjectiveKeys {
  MetricsView metrics;
  KeyView keys;
  int metric;
  double min_trades;
  int maximize;
  KOKKOS_INLINE_FUNCTION void operator()(const int r) const {
    const double v = metrics(r, metric);
    const double trades = metrics(r, int(Metric::n_trades));
    if (!objective_eligible(v, trades, min_trades)) {
      keys(r) = 0;
      return;
    }
    const std::uint64_t k = ordered_key(v);
    // Never 0 for a non-NaN value: the smallest key of either order is that of
    // -inf (maximise) or +inf (minimise), 0x000F...F.
    keys(r) = maximize ? k : ~k;
  }
};

// The final order of selected rows: key descending, then combo id ascending
// (kbt::select_top_k's order, by keys).
inline bool ranks_before(std::uint64_t key_a, std::uint64_t id_a, std::uint64_t key_b, std::uint64_t id_b) {
  if (key_a != key_b) return key_a > key_b;
  return id_a < id_b;
}

}  // namespace detail
}  // namespace kbt
