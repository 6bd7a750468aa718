#pragma once
// Statistics of Sharpe ratios under multiple testing (docs/validation.md
// "Deflated Sharpe"), after Bailey & López de Prado: the Probabilistic Sharpe
// Ratio, the expected maximum Sharpe ratio of N trials, the Deflated Sharpe
// Ratio and the Minimum Track Record Length. Conventions: Sharpe ratios per
// period (not annualised), T observations with the (T - 1) of the papers,
// kurtosis non-excess (3 for normal returns).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kbt::stats {

inline constexpr double euler_gamma = 0.57721566490153286061;

// The standard normal CDF and its inverse (Wichura's AS 241, |error| < 1e-16).
double normal_cdf(double x);
double normal_quantile(double p);  // p in (0, 1)

// The moments of a sample: mean, standard deviation (n - 1), skewness and
// non-excess kurtosis (population moments m3 / m2^1.5 and m4 / m2^2).
struct Moments {
  std::size_t n = 0;
  double mean = 0, std_dev = 0, skewness = 0, kurtosis = 0;
  double sharpe() const { return std_dev > 0 ? mean / std_dev : 0.0 / 0.0; }
};
Moments moments(const double* x, std::size_t n);

// PSR(SR*) = Phi((SR - SR*) sqrt(T - 1) / sqrt(1 - skew SR + (kurt - 1) / 4 SR^2)).
double probabilistic_sharpe(double sharpe, double benchmark, double n_obs, double skewness, double kurtosis);

// E[max of N Sharpe ratios] ~ sqrt(V) ((1 - g) Phi^-1(1 - 1/N) + g Phi^-1(1 - 1/(N e))),
// V the variance of the trials' Sharpe ratios; the bracket alone for V = 1.
double expected_max_sharpe(double n_trials, double variance = 1.0);

// DSR = PSR(SR0) with SR0 = expected_max_sharpe(N, V).
double deflated_sharpe(double sharpe, double n_trials, double variance, double n_obs, double skewness,
                       double kurtosis);

// MinTRL = 1 + (1 - skew SR + (kurt - 1) / 4 SR^2) (Phi^-1(confidence) / (SR - SR*))^2
// observations; infinite when SR <= SR*.
double min_track_record_length(double sharpe, double benchmark, double skewness, double kurtosis,
                               double confidence = 0.95);

// Effective number of independent trials from the mean off-diagonal
// correlation rho of N trials: rho + (1 - rho) N (clamped to [1, N]).
double effective_trials_from_correlation(double mean_correlation, double n_trials);

// Spearman rank correlation of two rank lists over the items ranked (> 0) in
// both (NaN below 2): 1 - 6 sum d^2 / (m (m^2 - 1)) after re-ranking them 1..m.
double rank_correlation(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b);

}  // namespace kbt::stats
