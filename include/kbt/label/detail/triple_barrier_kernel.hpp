#pragma once
// The triple-barrier labelling functor (docs/label.md): one thread per
// (setting, symbol, event bar) walks at most `horizon` bars. Independent of
// the host reference (src/label/triple_barrier_reference.cpp); the two agree
// bit for bit in fp64 (tests/unit/test_label_triple_barrier.cpp).

#include <kbt/core/detail/kokkos_compat.hpp>
#include <kbt/core/detail/scalar_math.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kbt::detail {

enum : std::int8_t { barrier_none = 0, barrier_profit = 1, barrier_stop = 2, barrier_vertical = 3 };

// The largest finite double: a width above it is infinite.
constexpr double kLargestFinite = 1.7976931348623157e308;

template <class Space>
struct TripleBarrierKernel {
  using Mem = typename Space::memory_space;
  std::size_t n_symbols = 0, n_bars = 0;
  Kokkos::View<const double*, Mem> open, high, low, close, volatility, side;
  bool has_side = false;
  Kokkos::View<double*, Mem> profit_take, stop;
  Kokkos::View<std::int64_t*, Mem> horizon;
  Kokkos::View<std::int8_t*, Mem> label, barrier;
  Kokkos::View<std::int64_t*, Mem> touch_bar;
  Kokkos::View<double*, Mem> ret;

  // One (setting, symbol, bar) of an MDRangePolicy: no index division.
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t setting_, const std::int64_t symbol,
                                         const std::int64_t bar) const {
    const auto setting = static_cast<std::size_t>(setting_), t0 = static_cast<std::size_t>(bar);
    const std::size_t base = static_cast<std::size_t>(symbol) * n_bars, at = base + t0;
    const std::size_t i = setting * n_symbols * n_bars + at;
    const double c0 = close(at), w = volatility(at);
    const double dir = has_side ? side(at) : 1.0;
    if (!(dir == 1.0 || dir == -1.0) || kbt::math::isnan(c0) || !(w > 0) || !(w <= kLargestFinite) ||
        t0 + 1 >= n_bars) {
      label(i) = 0;
      barrier(i) = barrier_none;
      touch_bar(i) = -1;
      ret(i) = kbt::math::quiet_nan<double>();
      return;
    }
    const double pt = profit_take(setting), sl = stop(setting);
    const bool up = dir > 0, has_profit = pt > 0, has_stop = sl > 0;
    const double profit_level = up ? c0 * (1.0 + pt * w) : c0 * (1.0 - pt * w);
    const double stop_level = up ? c0 * (1.0 - sl * w) : c0 * (1.0 + sl * w);
    // A short mirrors every comparison of a long (docs/label.md "One bar"):
    // both sides of each are multiplied by dir (exact), and the bar's
    // adverse extreme is its low for a long, its high for a short.
    const double signed_profit = dir * profit_level, signed_stop = dir * stop_level;
    const double* adverse = up ? low.data() : high.data();
    const double* favourable = up ? high.data() : low.data();
    const std::size_t horizon_bar = t0 + static_cast<std::size_t>(horizon(setting));
    const std::size_t last_bar = horizon_bar < n_bars - 1 ? horizon_bar : n_bars - 1;
    double mark = c0;
    for (std::size_t t = t0 + 1; t <= last_bar; ++t) {
      const double c = close(base + t);
      if (kbt::math::isnan(c)) continue;  // no bar
      const double o = dir * open(base + t);
      double px;
      std::int8_t which;
      if (has_stop && o <= signed_stop) px = open(base + t), which = barrier_stop;             // gap through the stop
      else if (has_profit && o >= signed_profit) px = open(base + t), which = barrier_profit;  // gap through the profit
      else if (has_stop && dir * adverse[base + t] <= signed_stop) px = stop_level, which = barrier_stop;
      else if (has_profit && dir * favourable[base + t] >= signed_profit) px = profit_level, which = barrier_profit;
      else {
        mark = c;
        continue;
      }
      label(i) = which == barrier_profit ? 1 : -1;
      barrier(i) = which;
      touch_bar(i) = static_cast<std::int64_t>(t);
      ret(i) = dir * (px / c0 - 1.0);
      return;
    }
    label(i) = 0;
    barrier(i) = barrier_vertical;
    touch_bar(i) = static_cast<std::int64_t>(last_bar);
    ret(i) = dir * (mark / c0 - 1.0);
  }
};

}  // namespace kbt::detail
