// Statistics of Sharpe ratios (include/kbt/validation/sharpe_statistics.hpp,
// docs/validation.md "Deflated Sharpe").

#include <kbt/validation/sharpe_statistics.hpp>

#include <kbt/core/error.hpp>

#include <algorithm>
#include <numeric>
#include <cmath>
#include <limits>

namespace kbt::stats {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Wichura, M. J. (1988), Algorithm AS 241: The percentage points of the normal
// distribution, Applied Statistics 37, 477-484 (PPND16).
double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) throw Error(ErrorCategory::internal, "normal_quantile: p must be in (0, 1)");
  const double q = p - 0.5;
  if (std::fabs(q) <= 0.425) {
    const double r = 0.180625 - q * q;
    return q *
           (((((((2509.0809287301226727 * r + 33430.575583588128105) * r + 67265.770927008700853) * r +
                45921.953931549871457) * r + 13731.693765509461125) * r + 1971.5909503065514427) * r +
             133.14166789178437745) * r + 3.387132872796366608) /
           (((((((5226.495278852545925 * r + 28729.085735721942674) * r + 39307.89580009271061) * r +
                21213.794301586595867) * r + 5394.1960214247511077) * r + 687.1870074920579083) * r +
             42.313330701600911252) * r + 1.0);
  }
  double r = q < 0 ? p : 1.0 - p;
  r = std::sqrt(-std::log(r));
  double x;
  if (r <= 5.0) {
    r -= 1.6;
    x = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r + 0.24178072517745061177) * r +
             1.27045825245236838258) * r + 3.64784832476320460504) * r + 5.7694972214606914055) * r +
          4.6303378461565452959) * r + 1.42343711074968357734) /
        (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r +
             0.14810397642748007459) * r + 0.68976733498510000455) * r + 1.6763848301838038494) * r +
          2.05319162663775882187) * r + 1.0);
  } else {
    r -= 5.0;
    x = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r +
             0.026532189526576123093) * r + 0.29656057182850489123) * r + 1.7848265399172913358) * r +
          5.4637849111641143699) * r + 6.6579046435011037772) /
        (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r +
             7.868691311456132591e-4) * r + 0.0148753612908506148525) * r + 0.13692988092273580531) * r +
          0.59983220655588793769) * r + 1.0);
  }
  return q < 0 ? -x : x;
}

Moments moments(const double* x, std::size_t n) {
  Moments m;
  m.n = n;
  if (n == 0) return m;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += x[i];
  m.mean = sum / double(n);
  double m2 = 0, m3 = 0, m4 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = x[i] - m.mean, d2 = d * d;
    m2 += d2, m3 += d2 * d, m4 += d2 * d2;
  }
  m2 /= double(n), m3 /= double(n), m4 /= double(n);
  m.std_dev = n > 1 ? std::sqrt(m2 * double(n) / double(n - 1)) : std::numeric_limits<double>::quiet_NaN();
  m.skewness = m2 > 0 ? m3 / std::pow(m2, 1.5) : std::numeric_limits<double>::quiet_NaN();
  m.kurtosis = m2 > 0 ? m4 / (m2 * m2) : std::numeric_limits<double>::quiet_NaN();
  return m;
}

double probabilistic_sharpe(double sharpe, double benchmark, double n_obs, double skewness, double kurtosis) {
  const double var = 1.0 - skewness * sharpe + (kurtosis - 1.0) / 4.0 * sharpe * sharpe;
  if (!(var > 0) || !(n_obs > 1)) return std::numeric_limits<double>::quiet_NaN();
  return normal_cdf((sharpe - benchmark) * std::sqrt(n_obs - 1.0) / std::sqrt(var));
}

double expected_max_sharpe(double n_trials, double variance) {
  if (!(n_trials > 1)) return 0.0;  // one trial: no selection
  const double bracket = (1.0 - euler_gamma) * normal_quantile(1.0 - 1.0 / n_trials) +
                         euler_gamma * normal_quantile(1.0 - 1.0 / (n_trials * std::exp(1.0)));
  return std::sqrt(variance) * bracket;
}

double deflated_sharpe(double sharpe, double n_trials, double variance, double n_obs, double skewness,
                       double kurtosis) {
  return probabilistic_sharpe(sharpe, expected_max_sharpe(n_trials, variance), n_obs, skewness, kurtosis);
}

double min_track_record_length(double sharpe, double benchmark, double skewness, double kurtosis, double confidence) {
  if (!(sharpe > benchmark)) return std::numeric_limits<double>::infinity();
  const double z = normal_quantile(confidence) / (sharpe - benchmark);
  return 1.0 + (1.0 - skewness * sharpe + (kurtosis - 1.0) / 4.0 * sharpe * sharpe) * z * z;
}

double effective_trials_from_correlation(double mean_correlation, double n_trials) {
  const double n = mean_correlation + (1.0 - mean_correlation) * n_trials;
  return std::min(n_trials, std::max(1.0, n));
}

double rank_correlation(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::vector<std::size_t> both;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i] > 0 && b[i] > 0) both.push_back(i);
  const std::size_t m = both.size();
  if (m < 2) return std::numeric_limits<double>::quiet_NaN();
  std::vector<std::size_t> by_a = both, by_b = both;
  std::sort(by_a.begin(), by_a.end(), [&](std::size_t x, std::size_t y) { return a[x] < a[y]; });
  std::sort(by_b.begin(), by_b.end(), [&](std::size_t x, std::size_t y) { return b[x] < b[y]; });
  std::vector<double> ra(a.size(), 0), rb(a.size(), 0);
  for (std::size_t k = 0; k < m; ++k) ra[by_a[k]] = double(k + 1), rb[by_b[k]] = double(k + 1);
  double sum_d2 = 0;
  for (const std::size_t i : both) sum_d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
  const double md = double(m);
  return 1.0 - 6.0 * sum_d2 / (md * (md * md - 1.0));
}

}  // namespace kbt::stats
