#pragma once
// Triple-barrier labels (López de Prado, "Advances in Financial Machine
// Learning", ch. 3) for a list of barrier settings, on the host reference
// engine or on a Kokkos space, bit-identical in fp64. Semantics:
// docs/label.md. This is the labelling core; the `job: label` config and CLI
// that evaluate the volatility and side expressions are not built yet.

#include <kbt/label/detail/triple_barrier_kernel.hpp>

#include <cstddef>
#include <cstdint>
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
  const std::size_t n = in.n_symbols * in.n_bars, total = settings.size() * n;
  const auto upload = [&](const double* p, const char* name) {
    Kokkos::View<double*, Mem> dev(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)), p ? n : 0);
    if (p) Kokkos::deep_copy(dev, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(p, n));
    return dev;
  };
  detail::TripleBarrierKernel<Space> k;
  k.n_symbols = in.n_symbols;
  k.n_bars = in.n_bars;
  k.open = upload(in.open, "kbt::label::open");
  k.high = upload(in.high, "kbt::label::high");
  k.low = upload(in.low, "kbt::label::low");
  k.close = upload(in.close, "kbt::label::close");
  k.volatility = upload(in.volatility, "kbt::label::volatility");
  k.side = upload(in.side, "kbt::label::side");
  k.has_side = in.side != nullptr;
  Kokkos::View<double*, Kokkos::HostSpace> pt("kbt::label::pt", settings.size()), sl("kbt::label::sl", settings.size());
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> h("kbt::label::h", settings.size());
  for (std::size_t i = 0; i < settings.size(); ++i) pt(i) = settings[i].profit_take, sl(i) = settings[i].stop, h(i) = settings[i].horizon;
  k.profit_take = Kokkos::create_mirror_view_and_copy(Mem(), pt);
  k.stop = Kokkos::create_mirror_view_and_copy(Mem(), sl);
  k.horizon = Kokkos::create_mirror_view_and_copy(Mem(), h);
  k.label = decltype(k.label)("kbt::label::label", total);
  k.touch_bar = decltype(k.touch_bar)("kbt::label::touch_bar", total);
  k.ret = decltype(k.ret)("kbt::label::ret", total);
  k.barrier = decltype(k.barrier)("kbt::label::barrier", total);
  Kokkos::parallel_for("kbt::triple_barrier", Kokkos::RangePolicy<Space>(0, total), k);
  Space().fence();
  BarrierLabels out;
  const auto download = [](auto dev, auto& host) {
    auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dev);
    host.assign(mirror.data(), mirror.data() + mirror.extent(0));
  };
  download(k.label, out.label);
  download(k.touch_bar, out.touch_bar);
  download(k.ret, out.ret);
  download(k.barrier, out.barrier);
  return out;
}

}  // namespace kbt
