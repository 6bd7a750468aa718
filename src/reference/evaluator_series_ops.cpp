// Series ops of the reference evaluator, written as the plain definitions of
// docs/language.md: every window is re-summed oldest -> newest (no running sums),
// so that kernels that follow the same order reproduce every bit.

#include "reference/evaluator_series_ops.hpp"

#include <algorithm>

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/lang/scalar_ops.hpp>

namespace kbt::reference {

namespace {

const double nan = kbt::math::quiet_nan<double>();

bool isnan(double v) { return kbt::math::isnan(v); }

// x[t-w+1] + ... + x[t], accumulated left to right; NaN when any term is NaN.
double window_sum(const Row& x, std::size_t t, std::size_t w) {
  double s = x[t + 1 - w];
  if (isnan(s)) return nan;
  for (std::size_t i = t + 2 - w; i <= t; ++i) {
    if (isnan(x[i])) return nan;
    s += x[i];
  }
  return s;
}

// Sample standard deviation (ddof = 1) of the window ending at t, given its mean.
double window_std(const Row& x, std::size_t t, std::size_t w, double mean) {
  double d = x[t + 1 - w] - mean;
  double ss = d * d;
  for (std::size_t i = t + 2 - w; i <= t; ++i) {
    d = x[i] - mean;
    ss += d * d;
  }
  return kbt::math::sqrt(ss / static_cast<double>(w - 1));
}

// Wilder smoothing shared by rsi and atr: seeded with the plain mean of the first
// w consecutive non-NaN values of `v`, then s = (s * (w - 1) + v) / w.
// A NaN before the seed restarts it; after the seed it gives NaN and keeps s.
template <class Emit>
void wilder(const std::vector<Row>& series, long w_long, Emit emit) {
  const std::size_t n = series[0].size();
  const std::size_t w = static_cast<std::size_t>(w_long);
  const std::size_t k = series.size();
  std::vector<double> s(k, 0.0);
  std::size_t run = 0;  // consecutive valid values so far (before the seed)
  bool seeded = false;
  const double wd = static_cast<double>(w);
  for (std::size_t t = 0; t < n; ++t) {
    bool valid = true;
    for (const auto& v : series) valid = valid && !isnan(v[t]);
    if (!valid) {
      run = 0;
      emit(t, nullptr);
      continue;
    }
    if (!seeded) {
      ++run;
      if (run < w) {
        emit(t, nullptr);
        continue;
      }
      for (std::size_t j = 0; j < k; ++j) s[j] = window_sum(series[j], t, w) / wd;
      seeded = true;
    } else {
      for (std::size_t j = 0; j < k; ++j) s[j] = (s[j] * (wd - 1.0) + series[j][t]) / wd;
    }
    emit(t, s.data());
  }
}

}  // namespace

Row lag(const Row& x, long k) {
  Row y(x.size(), nan);
  const auto ku = static_cast<std::size_t>(k);
  for (std::size_t t = ku; t < x.size(); ++t) y[t] = x[t - ku];
  return y;
}

Row lead(const Row& x, long k) {
  Row y(x.size(), nan);
  const auto ku = static_cast<std::size_t>(k);
  for (std::size_t t = 0; t + ku < x.size(); ++t) y[t] = x[t + ku];
  return y;
}

Row rolling_sum(const Row& x, long w) {
  Row y(x.size(), nan);
  const auto wu = static_cast<std::size_t>(w);
  for (std::size_t t = wu - 1; t < x.size(); ++t) y[t] = window_sum(x, t, wu);
  return y;
}

Row rolling_mean(const Row& x, long w) {
  Row y(x.size(), nan);
  const auto wu = static_cast<std::size_t>(w);
  for (std::size_t t = wu - 1; t < x.size(); ++t) y[t] = window_sum(x, t, wu) / static_cast<double>(w);
  return y;
}

Row rolling_std(const Row& x, long w) {
  Row y(x.size(), nan);
  const auto wu = static_cast<std::size_t>(w);
  for (std::size_t t = wu - 1; t < x.size(); ++t) {
    const double mean = window_sum(x, t, wu) / static_cast<double>(w);
    if (!isnan(mean)) y[t] = window_std(x, t, wu, mean);
  }
  return y;
}

Row rolling_min(const Row& x, long w) {
  Row y(x.size(), nan);
  const auto wu = static_cast<std::size_t>(w);
  for (std::size_t t = wu - 1; t < x.size(); ++t) {
    double m = x[t + 1 - wu];
    for (std::size_t i = t + 1 - wu; i <= t && !isnan(m); ++i) m = isnan(x[i]) ? nan : (x[i] < m ? x[i] : m);
    y[t] = m;
  }
  return y;
}

Row rolling_max(const Row& x, long w) {
  Row y(x.size(), nan);
  const auto wu = static_cast<std::size_t>(w);
  for (std::size_t t = wu - 1; t < x.size(); ++t) {
    double m = x[t + 1 - wu];
    for (std::size_t i = t + 1 - wu; i <= t && !isnan(m); ++i) m = isnan(x[i]) ? nan : (x[i] > m ? x[i] : m);
    y[t] = m;
  }
  return y;
}

Row zscore(const Row& x, long w) {
  Row y(x.size(), nan);
  const auto wu = static_cast<std::size_t>(w);
  for (std::size_t t = wu - 1; t < x.size(); ++t) {
    const double mean = window_sum(x, t, wu) / static_cast<double>(w);
    if (isnan(mean)) continue;
    const double sd = window_std(x, t, wu, mean);
    y[t] = kbt::ops::div(x[t] - mean, sd);
  }
  return y;
}

Row ema(const Row& x, long span) {
  Row y(x.size(), nan);
  const double alpha = 2.0 / (static_cast<double>(span) + 1.0);
  const double keep = 1.0 - alpha;
  bool seeded = false;
  double e = 0.0;
  for (std::size_t t = 0; t < x.size(); ++t) {
    if (isnan(x[t])) continue;  // NaN out, state unchanged
    if (!seeded) {
      e = x[t];
      seeded = true;
    } else {
      e = alpha * x[t] + keep * e;
    }
    y[t] = e;
  }
  return y;
}

Row rsi(const Row& x, long w) {
  const std::size_t n = x.size();
  // Built in place (a braced {gain, loss} copy of the two made GCC 12 at -O3
  // warn -Wfree-nonheap-object, a false positive, on every Release build).
  std::vector<Row> gain_loss(2, Row(n, nan));
  Row& gain = gain_loss[0];
  Row& loss = gain_loss[1];
  for (std::size_t t = 1; t < n; ++t) {
    const double d = x[t] - x[t - 1];
    if (isnan(d)) continue;
    gain[t] = d > 0.0 ? d : 0.0;
    loss[t] = d < 0.0 ? -d : 0.0;
  }
  Row y(n, nan);
  wilder(gain_loss, w, [&](std::size_t t, const double* s) {
    if (!s) return;
    const double avg_gain = s[0], avg_loss = s[1];
    if (avg_loss == 0.0) {
      y[t] = avg_gain == 0.0 ? 50.0 : 100.0;
    } else {
      y[t] = 100.0 - 100.0 / (1.0 + avg_gain / avg_loss);
    }
  });
  return y;
}

Row roc(const Row& x, long w) {
  Row y(x.size(), nan);
  const auto wu = static_cast<std::size_t>(w);
  for (std::size_t t = wu; t < x.size(); ++t) y[t] = kbt::ops::div(x[t] - x[t - wu], x[t - wu]);
  return y;
}

Row atr(const Row& high, const Row& low, const Row& close, long w) {
  const std::size_t n = close.size();
  Row tr(n, nan);
  for (std::size_t t = 1; t < n; ++t) {
    const double a = high[t] - low[t];
    const double b = kbt::math::fabs(high[t] - close[t - 1]);
    const double c = kbt::math::fabs(low[t] - close[t - 1]);
    tr[t] = kbt::ops::apply_pointwise(OpCode::max, kbt::ops::apply_pointwise(OpCode::max, a, b, 0.0), c, 0.0);
  }
  Row y(n, nan);
  wilder({tr}, w, [&](std::size_t t, const double* s) {
    if (s) y[t] = s[0];
  });
  return y;
}

Row cs_rank(const Row& x) {
  // Each valid value's count of valid values below it and equal to it, found
  // by binary search in the sorted valid values: O(N log N) a bar, the same
  // integers as comparing every pair (-0 and +0 compare equal either way).
  std::vector<double> sorted;
  for (double v : x)
    if (!isnan(v)) sorted.push_back(v);
  std::sort(sorted.begin(), sorted.end());
  const std::size_t valid = sorted.size();
  Row y(x.size(), nan);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (isnan(x[i])) continue;
    // Average 1-based rank of the tie group, scaled so that the lowest valid value
    // is 0 and the highest 1; a lone valid value is 0.5.
    if (valid == 1) {
      y[i] = 0.5;
      continue;
    }
    const auto first = std::lower_bound(sorted.begin(), sorted.end(), x[i]);
    const auto last = std::upper_bound(first, sorted.end(), x[i]);
    const auto less = static_cast<std::size_t>(first - sorted.begin());
    const auto equal = static_cast<std::size_t>(last - first);
    const double rank = static_cast<double>(less) + (static_cast<double>(equal) + 1.0) / 2.0;
    y[i] = (rank - 1.0) / static_cast<double>(valid - 1);
  }
  return y;
}

namespace {
// Mean of the non-NaN values in symbol order, and their count.
double valid_mean(const Row& x, std::size_t& count) {
  double s = 0.0;
  count = 0;
  for (double v : x) {
    if (isnan(v)) continue;
    s = count == 0 ? v : s + v;
    ++count;
  }
  return count == 0 ? nan : s / static_cast<double>(count);
}
}  // namespace

Row cs_demean(const Row& x) {
  std::size_t count = 0;
  const double mean = valid_mean(x, count);
  Row y(x.size(), nan);
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!isnan(x[i])) y[i] = x[i] - mean;
  return y;
}

Row cs_zscore(const Row& x) {
  std::size_t count = 0;
  const double mean = valid_mean(x, count);
  Row y(x.size(), nan);
  if (count < 2) return y;
  double ss = 0.0;
  bool first = true;
  for (double v : x) {
    if (isnan(v)) continue;
    const double d = v - mean;
    ss = first ? d * d : ss + d * d;
    first = false;
  }
  const double sd = kbt::math::sqrt(ss / static_cast<double>(count - 1));
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!isnan(x[i])) y[i] = kbt::ops::div(x[i] - mean, sd);
  return y;
}

}  // namespace kbt::reference
