#pragma once
// The resolved simulation settings as a kernel reads them: plain data in the
// kernel's real type, copied into every thread (docs/semantics.md "Settings").
// Made from a ResolvedSimulation only, so that no kernel converts a setting.

#include <kbt/core/error.hpp>
#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/simulation/setting_units.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

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
  // A swept fee_bps: this fee for every symbol instead of the step's per-symbol column.
  int has_fee_override = 0;
  Real fee_override = 0;
  // Swept settings (docs/semantics.md "Swept settings"): the param column each
  // takes its value from, -1 when not swept.
  int any_swept = 0;
  int stop_loss_param = -1, take_profit_param = -1, trailing_stop_param = -1;
  int fee_param = -1, slippage_param = -1, leverage_param = -1;

  KOKKOS_INLINE_FUNCTION bool has_stops() const { return has_stop_loss || has_take_profit || has_trailing_stop; }

  // The rules of one combo: each swept setting from the combo's value of its
  // param (`value(p)`, the param in column p), converted as combo_simulation
  // converts it on the host.
  template <class ParamValue>
  KOKKOS_INLINE_FUNCTION PortfolioRules of_combo(const ParamValue& value) const {
    PortfolioRules r = *this;
    if (stop_loss_param >= 0) r.stop_loss = value(stop_loss_param);
    if (take_profit_param >= 0) r.take_profit = value(take_profit_param);
    if (trailing_stop_param >= 0) r.trailing_stop = value(trailing_stop_param);
    if (fee_param >= 0) r.fee_override = static_cast<Real>(fraction_of_bps(double(value(fee_param))));
    if (slippage_param >= 0) r.slippage = static_cast<Real>(fraction_of_bps(double(value(slippage_param))));
    if (leverage_param >= 0) r.max_gross_leverage = value(leverage_param);
    return r;
  }

  // Host only. `param_names`: the program's params, in their column order.
  static PortfolioRules from(const ResolvedSimulation& sim, const std::vector<std::string>& param_names = {}) {
    PortfolioRules r;
    const auto column = [&](const std::string& name) {
      if (name.empty()) return -1;
      for (std::size_t p = 0; p < param_names.size(); ++p)
        if (param_names[p] == name) return static_cast<int>(p);
      throw Error(ErrorCategory::internal, "swept setting: the program has no param '" + name + "'");
    };
    r.stop_loss_param = column(sim.swept.stop_loss);
    r.take_profit_param = column(sim.swept.take_profit);
    r.trailing_stop_param = column(sim.swept.trailing_stop);
    r.fee_param = column(sim.swept.fee_bps);
    r.slippage_param = column(sim.swept.slippage_bps);
    r.leverage_param = column(sim.swept.max_gross_leverage);
    r.any_swept = sim.swept.any() ? 1 : 0;
    r.has_fee_override = r.fee_param >= 0 ? 1 : 0;
    r.initial_capital = static_cast<Real>(sim.initial_capital);
    r.slippage = static_cast<Real>(sim.slippage);
    r.borrow_per_bar = static_cast<Real>(sim.borrow_per_bar);
    r.max_gross_leverage = static_cast<Real>(sim.max_gross_leverage);
    r.periods_per_year = static_cast<Real>(sim.periods_per_year);
    r.has_stop_loss = sim.stop_loss || r.stop_loss_param >= 0 ? 1 : 0;
    r.has_take_profit = sim.take_profit || r.take_profit_param >= 0 ? 1 : 0;
    r.has_trailing_stop = sim.trailing_stop || r.trailing_stop_param >= 0 ? 1 : 0;
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
