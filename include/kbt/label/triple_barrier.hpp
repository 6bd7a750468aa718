#pragma once
// Triple-barrier labels (López de Prado, "Advances in Financial Machine
// Learning", ch. 3) for a list of barrier settings, on the host reference
// engine or on a Kokkos space, bit-identical in fp64. Semantics:
// docs/label.md. This is the labelling core; the `job: label` config and CLI
// that evaluate the volatility and side expressions are not built yet.

#include <kbt/label/detail/triple_barrier_kernel.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace kbt {

struct BarrierSetting {
  double profit_take = 1;    // profit barrier at this multiple of the event's volatility; 0: none
  double stop = 1;           // stop barrier likewise; 0: none
  std::int64_t horizon = 1;  // vertical barrier: bars after the event (>= 1)
};

// Symbol-major columns [n_symbols][n_bars] as in kbt::BarData. `volatility`
// is the barrier width as a return fraction per bar (e.g. a rolling standard
// deviation of returns); `side` (+1 long / -1 short; anything else: no event)
// may be null: every bar is a long event.
struct BarrierInputs {
  std::size_t n_symbols = 0, n_bars = 0;
  const double *open = nullptr, *high = nullptr, *low = nullptr, *close = nullptr;
  const double* volatility = nullptr;
  const double* side = nullptr;
};

// Per (setting, symbol, bar): [n_settings][n_symbols][n_bars]. A bar that is
// not an event has label 0, touch_bar -1, ret NaN, barrier none.
struct BarrierLabels {
  std::vector<std::int8_t> label;       // +1 profit barrier, -1 stop barrier, 0 vertical (or no event)
  std::vector<std::int64_t> touch_bar;  // the bar of the first touch (the vertical: the horizon's bar)
  std::vector<double> ret;              // side * (exit price / entry close - 1)
  std::vector<std::int8_t> barrier;     // detail::barrier_none / _profit / _stop / _vertical
};

// kbt::Error(config) for no settings, a multiple that is negative or not
// finite, or a horizon < 1 (both multiples 0 is allowed: every event then
// ends at its vertical barrier).
void check_barrier_settings(const std::vector<BarrierSetting>& settings);

// The plain host implementation (src/label/triple_barrier_reference.cpp).
BarrierLabels triple_barrier_reference(const BarrierInputs& in, const std::vector<BarrierSetting>& settings);

// The same on `Space`, one thread per (setting, symbol, bar).
template <class Space>
BarrierLabels triple_barrier_on(const BarrierInputs& in, const std::vector<BarrierSetting>& settings) {
  check_barrier_settings(settings);
  using Mem = typename Space::memory_space;
  using HostColumn = Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::size_t n = in.n_symbols * in.n_bars, total = settings.size() * n;
  // On a host space the kernel reads the caller's columns and writes the
  // result vectors in place; on a device each is copied once, one way.
  const auto column = [&](const double* p) {
    return Kokkos::create_mirror_view_and_copy(Mem(), HostColumn(p, p ? n : 0));
  };
  detail::TripleBarrierKernel<Space> k;
  k.n_symbols = in.n_symbols;
  k.n_bars = in.n_bars;
  k.open = column(in.open);
  k.high = column(in.high);
  k.low = column(in.low);
  k.close = column(in.close);
  k.volatility = column(in.volatility);
  k.side = column(in.side);
  k.has_side = in.side != nullptr;
  Kokkos::View<double*, Kokkos::HostSpace> pt("kbt::label::pt", settings.size()), sl("kbt::label::sl", settings.size());
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> h("kbt::label::h", settings.size());
  for (std::size_t i = 0; i < settings.size(); ++i) pt(i) = settings[i].profit_take, sl(i) = settings[i].stop, h(i) = settings[i].horizon;
  k.profit_take = Kokkos::create_mirror_view_and_copy(Mem(), pt);
  k.stop = Kokkos::create_mirror_view_and_copy(Mem(), sl);
  k.horizon = Kokkos::create_mirror_view_and_copy(Mem(), h);
  BarrierLabels out;
  out.label.resize(total);
  out.touch_bar.resize(total);
  out.ret.resize(total);
  out.barrier.resize(total);
  // Every element is written by the kernel: no initialisation on the device.
  const auto result = [&](auto& host) {
    using T = typename std::decay_t<decltype(host)>::value_type;
    Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h_view(host.data(), total);
    return Kokkos::create_mirror_view(Kokkos::view_alloc(Mem(), Kokkos::WithoutInitializing), h_view);
  };
  auto label = result(out.label);
  auto touch_bar = result(out.touch_bar);
  auto ret = result(out.ret);
  auto barrier = result(out.barrier);
  k.label = label;
  k.touch_bar = touch_bar;
  k.ret = ret;
  k.barrier = barrier;
  using Policy = Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>, Kokkos::IndexType<std::int64_t>>;
  const auto extent = [](std::size_t x) { return static_cast<std::int64_t>(x); };
  if (total > 0)
    Kokkos::parallel_for("kbt::triple_barrier",
                         Policy({0, 0, 0}, {extent(settings.size()), extent(in.n_symbols), extent(in.n_bars)}), k);
  Space().fence();
  const auto download = [&](auto& host, const auto& dev) {
    using T = typename std::decay_t<decltype(host)>::value_type;
    Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(), total),
                      dev);
  };
  download(out.label, label);
  download(out.touch_bar, touch_bar);
  download(out.ret, ret);
  download(out.barrier, barrier);
  return out;
}

}  // namespace kbt
