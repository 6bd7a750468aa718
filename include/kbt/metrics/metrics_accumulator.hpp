#pragma once
// The 21 metrics of docs/metrics.md as a single forward pass (docs/metrics.md).
//
// The simulator feeds it, in this order per window bar: add_fill / add_trade /
// add_funding as the events happen, then add_bar(equity at the close). finish()
// writes the metrics in kbt::Metric order. Every update is a fixed sequence of
// IEEE operations with no storage, no sorting and no second pass, so that a
// streaming sweep kernel holding this struct in registers reproduces the
// reference engine's fp64 values bit for bit. Callable on host and device.
//
// `Groups` (metric_set.hpp) compiles in only the state of some metrics: the
// others are neither updated nor kept (no field holds them; finish() writes
// NaN for them), and the metrics of the set get the same bits as with every
// group.

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/metrics/detail/return_moments.hpp>
#include <kbt/metrics/metric_set.hpp>
#include <kbt/metrics/metrics_basis.hpp>
#include <kbt/metrics/metrics.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kbt {

namespace detail {

// The state of each metric group (metric_set.hpp). A set's accumulator
// derives from the groups it keeps and from an empty base for the others, so
// that it holds no field it does not update: a copy of it (the several-window
// pass stores one per window and block) moves only what the set needs.
// The returns group: the moments of the bar returns (return_moments.hpp:
// blocks without a division per bar in fp64, Welford's update in fp32) and
// the downside sum.
template <class Real>
struct ReturnMoments {
  ReturnMomentsOf<Real> moments;
  Real downside_sq = 0;  // sum of min(r, 0)^2
};
template <class Real>
struct DrawdownTrack {
  Real peak = 0;         // running peak of equity, starting at initial_equity
  Real max_dd = 0;       // most negative equity / peak - 1 (0 when never under water)
  Real dd_sq = 0;        // sum of (equity / peak - 1)^2
  int dd_run = 0;        // bars under the running peak, current stretch
  int dd_run_max = 0;    // longest stretch that has ended (finish() adds the current one)
};
template <class Real>
struct TradeStats {      // closed trades, in the order they close
  Real trade_return_sum = 0;
  Real gross_win = 0;    // sum of positive trade returns
  Real gross_loss = 0;   // minus the sum of negative trade returns (>= 0)
  Real best_trade = 0;
  Real worst_trade = 0;
  Real duration_sum = 0;
  int n_wins = 0;
};
template <class Real>
struct Activity {
  Real equity_sum = 0;       // for mean equity (turnover)
  Real traded_notional = 0;  // sum of |units| * executed price over all fills
  Real fees = 0;
  Real funding = 0;          // positive = paid
  int exposed_bars = 0;
};
template <unsigned Group>
struct NotKept {};  // one empty type per group, so that two can be bases at once

template <unsigned Groups, unsigned Group, class State>
using KeptIf = std::conditional_t<(Groups & Group) != 0, State, NotKept<Group>>;

}  // namespace detail

template <class Real, unsigned Groups = metric_group::all>
struct BasicMetricsAccumulator : detail::KeptIf<Groups, metric_group::returns, detail::ReturnMoments<Real>>,
                                 detail::KeptIf<Groups, metric_group::drawdown, detail::DrawdownTrack<Real>>,
                                 detail::KeptIf<Groups, metric_group::trades, detail::TradeStats<Real>>,
                                 detail::KeptIf<Groups, metric_group::activity, detail::Activity<Real>> {
  static constexpr bool with_returns = (Groups & metric_group::returns) != 0;
  static constexpr bool with_drawdown = (Groups & metric_group::drawdown) != 0;
  static constexpr bool with_trades = (Groups & metric_group::trades) != 0;
  static constexpr bool with_activity = (Groups & metric_group::activity) != 0;

  // Kept by every set. The counters are int, as the kernels' bar indices (a
  // window holds fewer than 2^31 bars): a 64-bit counter takes an aligned
  // pair of a GPU thread's registers.
  // Equity at the previous close (the initial equity before the first bar):
  // > 0 until the account is ruined, 0 from its ruin bar on (docs/semantics.md
  // "Ruin"; the portfolio step reads it).
  Real prev_equity = 0;
  int n_bars = 0;        // bars of the scoring window
  int n_trades = 0;      // closed trades

  KOKKOS_DEFAULTED_FUNCTION BasicMetricsAccumulator() = default;
  KOKKOS_FORCEINLINE_FUNCTION explicit BasicMetricsAccumulator(Real initial_equity) : prev_equity(initial_equity) {
    if constexpr (with_drawdown) this->peak = initial_equity;
  }

  // One fill: notional = |delta units| * executed price; fee as charged.
  KOKKOS_FORCEINLINE_FUNCTION void add_fill(Real notional, Real fee) {
    if constexpr (with_activity) {
      this->traded_notional += notional;
      this->fees += fee;
    }
  }

  // Funding charged to the account on one symbol and bar (negative = received).
  KOKKOS_FORCEINLINE_FUNCTION void add_funding(Real cost) {
    if constexpr (with_activity) this->funding += cost;
  }

  // One closed trade: its return and its duration in bars.
  KOKKOS_FORCEINLINE_FUNCTION void add_trade(Real trade_return, Real duration_bars) {
    if constexpr (with_trades) {
      if (n_trades == 0) {
        this->best_trade = trade_return;
        this->worst_trade = trade_return;
      } else {
        if (trade_return > this->best_trade) this->best_trade = trade_return;
        if (trade_return < this->worst_trade) this->worst_trade = trade_return;
      }
      if (trade_return > Real(0)) {
        this->n_wins += 1;
        this->gross_win += trade_return;
      } else if (trade_return < Real(0)) {
        this->gross_loss -= trade_return;
      }
      this->trade_return_sum += trade_return;
      this->duration_sum += duration_bars;
    }
    n_trades += 1;
  }

  // Equity at the close of the next window bar; `exposed`: a position was held
  // during the bar (see docs/semantics.md).
  KOKKOS_FORCEINLINE_FUNCTION void add_bar(Real equity, bool exposed) {
    n_bars += 1;
    if constexpr (with_returns) {
      const Real r = equity / prev_equity - Real(1);
      this->moments.add(r, n_bars);
      // r < 0 ? r : 0 without a branch: its sign is a coin toss per bar.
      const Real down = math::less_or(r, Real(0));
      this->downside_sq += down * down;
    }
    prev_equity = equity;
    if constexpr (with_drawdown) {
      // Drawdown from the running peak (the peak includes the initial equity).
      this->peak = math::greater_or(equity, this->peak);
      const Real dd = equity / this->peak - Real(1);
      this->max_dd = math::less_or(dd, this->max_dd);
      this->dd_sq += dd * dd;
      // The longest stretch is taken when a stretch ends (and in finish()).
      if (equity < this->peak) {
        this->dd_run += 1;
      } else {
        if (this->dd_run > this->dd_run_max) this->dd_run_max = this->dd_run;
        this->dd_run = 0;
      }
    }
    if constexpr (with_activity) {
      this->equity_sum += equity;
      this->exposed_bars += exposed ? 1 : 0;
    }
  }

  // Writes the n_metrics values in kbt::Metric order; the metrics of the
  // groups the set does not keep are NaN. `basis.initial_equity` must be the
  // constructor's.
  KOKKOS_INLINE_FUNCTION void finish(Real* out, const MetricsBasis<Real>& basis) const {
    const Real periods_per_year = basis.periods_per_year;
    const Real nan = math::quiet_nan<Real>();
    for (int m = 0; m < int(n_metrics); ++m) out[m] = nan;
    const Real n = Real(n_bars);
    const Real final_equity = prev_equity;
    const Real growth = final_equity / basis.initial_equity;

    Real cagr = nan;
    if (n_bars > 0) cagr = growth > Real(0) ? math::pow(growth, periods_per_year / n) - Real(1) : Real(-1);
    out[int(Metric::total_return)] = growth - Real(1);
    out[int(Metric::cagr)] = cagr;
    out[int(Metric::n_trades)] = Real(n_trades);
    out[int(Metric::final_equity)] = final_equity;

    if constexpr (with_returns) {
      const detail::MeanAndM2<Real> moments = this->moments.result(n_bars);
      const Real mean = moments.mean, m2 = moments.m2;
      const Real sqrt_ppy = math::sqrt(periods_per_year);
      Real std_dev = nan;
      if (n_bars > 1) std_dev = math::sqrt(m2 / Real(n_bars - 1));
      const Real downside_dev = n_bars > 0 ? math::sqrt(this->downside_sq / n) : nan;
      out[int(Metric::ann_volatility)] = std_dev * sqrt_ppy;
      out[int(Metric::sharpe)] = std_dev > Real(0) ? mean / std_dev * sqrt_ppy : nan;
      out[int(Metric::sortino)] = (n_bars > 1 && downside_dev > Real(0)) ? mean / downside_dev * sqrt_ppy : nan;
    }
    if constexpr (with_drawdown) {
      out[int(Metric::calmar)] = this->max_dd < Real(0) ? cagr / (-this->max_dd) : nan;
      out[int(Metric::max_drawdown)] = n_bars > 0 ? this->max_dd : nan;
      const int longest_run = this->dd_run > this->dd_run_max ? this->dd_run : this->dd_run_max;
      out[int(Metric::max_drawdown_duration)] = n_bars > 0 ? Real(longest_run) : nan;
      out[int(Metric::ulcer_index)] = n_bars > 0 ? math::sqrt(this->dd_sq / n) : nan;
    }
    if constexpr (with_trades) {
      const Real trades = Real(n_trades);
      const bool any = n_trades > 0;
      out[int(Metric::win_rate)] = any ? Real(this->n_wins) / trades : nan;
      out[int(Metric::profit_factor)] = this->gross_loss > Real(0) ? this->gross_win / this->gross_loss : nan;
      out[int(Metric::avg_trade_return)] = any ? this->trade_return_sum / trades : nan;
      out[int(Metric::best_trade)] = any ? this->best_trade : nan;
      out[int(Metric::worst_trade)] = any ? this->worst_trade : nan;
      out[int(Metric::avg_trade_duration)] = any ? this->duration_sum / trades : nan;
    }
    if constexpr (with_activity) {
      out[int(Metric::exposure)] = n_bars > 0 ? Real(this->exposed_bars) / n : nan;
      out[int(Metric::turnover)] = n_bars > 0 ? this->traded_notional / (this->equity_sum / n) : nan;
      out[int(Metric::fees_paid)] = this->fees;
      out[int(Metric::funding_paid)] = this->funding;
    }
  }

  // Host convenience: the metrics as a MetricRow.
  MetricRow finish_row(const MetricsBasis<Real>& basis) const {
    Real values[n_metrics];
    finish(values, basis);
    MetricRow row{};
    for (std::size_t i = 0; i < n_metrics; ++i) row[i] = double(values[i]);
    return row;
  }
};

using MetricsAccumulator = BasicMetricsAccumulator<double>;

}  // namespace kbt
