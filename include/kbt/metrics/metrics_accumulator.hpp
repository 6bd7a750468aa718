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
// ReturnMoments holds the moments of the bar returns, without a division per bar
// (docs/metrics.md "Moments in blocks"): the bars of a block of
// `moment_block` add to two plain sums, shifted by the running mean; at the
// end of each block (and in finish) the block is merged into the running mean
// and sum of squared deviations by Chan, Golub and LeVeque's pairwise formula,
// added with compensation (Knuth's two-sum).
inline constexpr int moment_block = 32;  // a power of two: the block ends when (N & (moment_block - 1)) == 1
template <class Real>
struct ReturnMoments {
  Real mean = 0;         // running mean of the merged blocks' returns; the shift of the open block
  Real mean_err = 0;     // its compensation: the mean is mean + mean_err
  Real m2 = 0;           // sum of squared deviations of the merged blocks
  Real m2_err = 0;       // its compensation
  Real block_sum = 0;    // open block: sum of (r - mean)
  Real block_sq = 0;     // open block: sum of (r - mean)^2
  Real downside_sq = 0;  // sum of min(r, 0)^2
};

// s + x as the pair (s, err): s the rounded sum, err gathering what rounding
// dropped (Knuth's two-sum, exact in IEEE arithmetic without contraction).
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void add_compensated(Real& s, Real& err, Real x) {
  const Real t = s + x;
  const Real x_part = t - s;
  err += (s - (t - x_part)) + (x - x_part);
  s = t;
}

// Merges the open block of `block_bars` bars into the running moments of the
// `merged_bars` bars before it (Chan, Golub & LeVeque 1979): two divisions
// per block.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void merge_moment_block(ReturnMoments<Real>& m, int merged_bars, int block_bars) {
  const Real nb = Real(block_bars);
  const Real block_shifted_mean = m.block_sum / nb;
  const Real delta = block_shifted_mean - m.mean_err;  // block mean - running mean
  const Real block_m2 = m.block_sq - m.block_sum * block_shifted_mean;
  const Real weight = nb / Real(merged_bars + block_bars);
  add_compensated(m.mean, m.mean_err, delta * weight);
  add_compensated(m.m2, m.m2_err, block_m2 + delta * delta * Real(merged_bars) * weight);
  m.block_sum = 0;
  m.block_sq = 0;
}
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
  Real prev_equity = 0;  // equity at the previous close (the initial equity before the first bar)
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
      const Real shifted = r - this->mean;
      this->block_sum += shifted;
      this->block_sq += shifted * shifted;
      // The first bar is a block of its own (it sets the shift); then every
      // moment_block bars. The test is the same for every combo of a sweep.
      if ((n_bars & (detail::moment_block - 1)) == 1) {
        const int block_bars = n_bars == 1 ? 1 : detail::moment_block;
        detail::merge_moment_block<Real>(*this, n_bars - block_bars, block_bars);
      }
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
      // The open block's bars merged into a copy, then the compensations added.
      detail::ReturnMoments<Real> moments = *this;
      const int open_bars = n_bars > 0 ? (n_bars - 1) & (detail::moment_block - 1) : 0;
      if (open_bars > 0) detail::merge_moment_block<Real>(moments, n_bars - open_bars, open_bars);
      const Real mean = moments.mean + moments.mean_err;
      // Rounding can leave returns that are all equal a sum of squares a few
      // ulps under 0; that is 0 (a NaN stays NaN).
      const Real m2_sum = moments.m2 + moments.m2_err;
      const Real m2 = m2_sum < Real(0) ? Real(0) : m2_sum;
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
