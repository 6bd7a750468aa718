#pragma once
// A PortfolioStep on a space: the data's prices, the fee per symbol and the
// resolved rules uploaded once. The sweep kernel's set-up and the
// action-driven simulation (kbt/simulate/) both build their step here.

#include <kbt/core/detail/upload.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/simulation/portfolio_rules.hpp>
#include <kbt/simulation/portfolio_step.hpp>
#include <kbt/simulation/resolved_simulation.hpp>

#include <string>
#include <vector>

namespace kbt {
namespace detail {

// Column `name` of `bars` ([n_sym * n_bars], symbol-major) as Real on a space;
// zeros when the data has no such column.
template <class Real, class Space>
Kokkos::View<Real*, Space> upload_column(const BarData& bars, const std::string& name, const char* label) {
  std::vector<Real> host(bars.n_symbols() * bars.n_bars(), Real(0));
  if (bars.has_column(name)) {
    const auto& col = bars.columns.at(name);
    for (std::size_t k = 0; k < host.size(); ++k) host[k] = static_cast<Real>(col[k]);
  }
  return upload_1d<Real, Space>(host, label);
}

}  // namespace detail

// `position_form`: the step reads target positions (1) or entries/exits (0);
// `param_names`: the sweep's params that swept settings name (none for an
// action-driven simulation).
template <class ExecSpace, class Real>
PortfolioStep<ExecSpace, Real> upload_portfolio_step(const BarData& bars, const ResolvedSimulation& sim,
                                                     bool position_form,
                                                     const std::vector<std::string>& param_names = {}) {
  using Space = typename ExecSpace::memory_space;
  const std::size_t n_sym = bars.n_symbols();
  if (sim.fee_rate.size() != n_sym)
    throw Error(ErrorCategory::internal, "portfolio step: the resolved simulation has " +
                                             std::to_string(sim.fee_rate.size()) + " fees for " +
                                             std::to_string(n_sym) + " symbols");
  PortfolioStep<ExecSpace, Real> p;
  p.n_sym = static_cast<int>(n_sym);
  p.n_bars = static_cast<int>(bars.n_bars());
  p.position_form = position_form ? 1 : 0;
  p.open = detail::upload_column<Real, Space>(bars, "open", "kbt::open");
  p.high = detail::upload_column<Real, Space>(bars, "high", "kbt::high");
  p.low = detail::upload_column<Real, Space>(bars, "low", "kbt::low");
  p.close = detail::upload_column<Real, Space>(bars, "close", "kbt::close");
  p.has_funding = sim.has_funding ? 1 : 0;
  p.funding = detail::upload_column<Real, Space>(bars, "funding_rate", "kbt::funding_rate");
  const std::vector<Real> fee_rate(sim.fee_rate.begin(), sim.fee_rate.end());
  p.fee_rate = detail::upload_1d<Real, Space>(fee_rate, "kbt::fee_rate");
  p.rules = PortfolioRules<Real>::from(sim, param_names);
  return p;
}

}  // namespace kbt
