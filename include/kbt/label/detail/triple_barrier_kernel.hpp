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
  Kokkos::View<double*, Mem> open, high, low, close, volatility, side;
  bool has_side = false;
  Kokkos::View<double*, Mem> profit_take, stop;
  Kokkos::View<std::int64_t*, Mem> horizon;
  Kokkos::View<std::int8_t*, Mem> label, barrier;
  Kokkos::View<std::int64_t*, Mem> touch_bar;
  Kokkos::View<double*, Mem> ret;

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i) const {
    const std::size_t per_setting = n_symbols * n_bars;
    const std::size_t setting = i / per_setting, at = i % per_setting;
    const std::size_t base = at - at % n_bars, t0 = at % n_bars;
    label(i) = 0;
    barrier(i) = barrier_none;
    touch_bar(i) = -1;
    ret(i) = kbt::math::quiet_nan<double>();
    const double c0 = close(at), w = volatility(at);
    const double dir = has_side ? side(at) : 1.0;
    if (!(dir == 1.0 || dir == -1.0) || kbt::math::isnan(c0) || !(w > 0) || !(w <= kLargestFinite) || t0 + 1 >= n_bars) return;
    const double pt = profit_take(setting), sl = stop(setting);
    const bool up = dir > 0;
    const double profit_level = up ? c0 * (1.0 + pt * w) : c0 * (1.0 - pt * w);
    const double stop_level = up ? c0 * (1.0 - sl * w) : c0 * (1.0 + sl * w);
    const std::size_t last_bar = t0 + static_cast<std::size_t>(horizon(setting)) < n_bars - 1
                                     ? t0 + static_cast<std::size_t>(horizon(setting))
                                     : n_bars - 1;
    double mark = c0;
    for (std::size_t t = t0 + 1; t <= last_bar; ++t) {
      const double c = close(base + t);
      if (kbt::math::isnan(c)) continue;  // no bar
      const double o = open(base + t), h = high(base + t), l = low(base + t);
      // Long shown; a short mirrors every comparison (docs/label.md "One bar").
      const bool stop_gap = sl > 0 && (up ? o <= stop_level : o >= stop_level);
      const bool profit_gap = pt > 0 && (up ? o >= profit_level : o <= profit_level);
      const bool stop_hit = sl > 0 && (up ? l <= stop_level : h >= stop_level);
      const bool profit_hit = pt > 0 && (up ? h >= profit_level : l <= profit_level);
      double px = 0;
      std::int8_t which = barrier_none;
      if (stop_gap) px = o, which = barrier_stop;
      else if (profit_gap) px = o, which = barrier_profit;
      else if (stop_hit) px = stop_level, which = barrier_stop;
      else if (profit_hit) px = profit_level, which = barrier_profit;
      if (which != barrier_none) {
        label(i) = which == barrier_profit ? 1 : -1;
        barrier(i) = which;
        touch_bar(i) = static_cast<std::int64_t>(t);
        ret(i) = dir * (px / c0 - 1.0);
        return;
      }
      mark = c;
    }
    barrier(i) = barrier_vertical;
    touch_bar(i) = static_cast<std::int64_t>(last_bar);
    ret(i) = dir * (mark / c0 - 1.0);
  }
};

}  // namespace kbt::detail
