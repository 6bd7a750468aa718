#pragma once
// The resolved simulation settings as a kernel reads them: plain data in the
// kernel's real type, copied into every thread (docs/semantics.md "Settings").
// Made from a ResolvedSimulation only, so that no kernel converts a setting.

#include <kbt/simulation/resolved_simulation.hpp>

#include <Kokkos_Core.hpp>

namespace kbt {

template <class Real>
struct PortfolioRules {
  Real initial_capital = 0, slippage = 0, borrow_per_bar = 0, max_gross_leverage = 1;
  Real periods_per_year = 0;
  Real stop_loss = 0, take_profit = 0, trailing_stop = 0;
  int has_stop_loss = 0, has_take_profit = 0, has_trailing_stop = 0;
  int fill_next_open = 0, weighting_equal = 0, stop_first = 1;
  int window_begin = 0, window_end = 0;       // the scoring window [begin, end)
  int step = int(PortfolioStepKind::general);  // the step this run compiles

  KOKKOS_INLINE_FUNCTION bool has_stops() const { return has_stop_loss || has_take_profit || has_trailing_stop; }

  // Host only.
  static PortfolioRules from(const ResolvedSimulation& sim) {
    PortfolioRules r;
    r.initial_capital = static_cast<Real>(sim.initial_capital);
    r.slippage = static_cast<Real>(sim.slippage);
    r.borrow_per_bar = static_cast<Real>(sim.borrow_per_bar);
    r.max_gross_leverage = static_cast<Real>(sim.max_gross_leverage);
    r.periods_per_year = static_cast<Real>(sim.periods_per_year);
    r.has_stop_loss = sim.stop_loss ? 1 : 0;
    r.has_take_profit = sim.take_profit ? 1 : 0;
    r.has_trailing_stop = sim.trailing_stop ? 1 : 0;
    r.stop_loss = static_cast<Real>(sim.stop_loss.value_or(0.0));
    r.take_profit = static_cast<Real>(sim.take_profit.value_or(0.0));
    r.trailing_stop = static_cast<Real>(sim.trailing_stop.value_or(0.0));
    r.fill_next_open = sim.fill == SimulationSettings::Fill::next_open ? 1 : 0;
    r.weighting_equal = sim.weighting == SimulationSettings::Weighting::equal ? 1 : 0;
    r.stop_first = sim.sltp_priority == SimulationSettings::SltpPriority::stop_first ? 1 : 0;
    r.window_begin = static_cast<int>(sim.window.begin);
    r.window_end = static_cast<int>(sim.window.end);
    r.step = static_cast<int>(sim.step);
    return r;
  }
};

}  // namespace kbt
