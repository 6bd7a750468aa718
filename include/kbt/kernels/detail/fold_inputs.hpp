#pragma once
// Builds the input View of the fold kernels ([n_inputs][n_sym][n_bars],
// LayoutRight, in ExecSpace's memory space) from loaded bar data: one input per
// named column, in the order given; an exogenous series (shared by all symbols)
// is repeated for every symbol. fp32 inputs are rounded once, on the host.

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include <kbt/data/bar_data.hpp>
#include <kbt/core/error.hpp>
#include <kbt/kernels/detail/fold_task.hpp>

namespace kbt::kernels {

template <class ExecSpace, class Real = double>
Kokkos::View<Real***, Kokkos::LayoutRight, typename ExecSpace::memory_space> upload_fold_inputs(
    const BarData& data, const std::vector<std::string>& columns) {
  const std::size_t n_sym = data.n_symbols();
  const std::size_t n_bars = data.n_bars();
  Kokkos::View<Real***, Kokkos::LayoutRight, typename ExecSpace::memory_space> dev(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kbt::fold_inputs"), columns.size(), n_sym,
      n_bars);
  auto host = Kokkos::create_mirror_view(dev);
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::string& name = columns[c];
    const auto col = data.columns.find(name);
    const auto exo = data.exo.find(name);
    if (col == data.columns.end() && exo == data.exo.end())
      throw Error(ErrorCategory::internal, "fold input '" + name + "' is neither a bar column nor an exogenous series");
    for (std::size_t s = 0; s < n_sym; ++s) {
      const double* src = col != data.columns.end() ? col->second.data() + s * n_bars
                                                     : exo->second.data();
      for (std::size_t t = 0; t < n_bars; ++t) host(c, s, t) = static_cast<Real>(src[t]);
    }
  }
  Kokkos::deep_copy(dev, host);
  return dev;
}

}  // namespace kbt::kernels
