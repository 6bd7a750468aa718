// Candidates re-simulated on the validation engine, shared among processes
// (src/validation/candidate_scoring.hpp).

#include "validation/candidate_scoring.hpp"

#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/shared_pieces.hpp>
#include <kbt/sweep/sweep_engine.hpp>

#include <algorithm>
#include <limits>

namespace kbt::detail {

void score_candidates(const PreparedSweep& prepared, const BarData& bars, const std::string& device, int threads,
                      std::vector<double> params, std::size_t k, const std::vector<std::size_t>& period_last,
                      ChunkExchange* exchange, ValidationResults& v) {
  if (exchange) {
    k = static_cast<std::size_t>(exchange->broadcast(k));
    exchange->broadcast(params);
  }
  const std::size_t p = period_last.size(), n_params = prepared.n_params();
  v.period_returns.assign(p * k, std::numeric_limits<double>::quiet_NaN());
  if (v.test) v.test_metrics.assign(k * n_metrics, std::numeric_limits<double>::quiet_NaN());
  const std::vector<std::size_t> mine = my_pieces(exchange, k);
  if (!mine.empty()) {
    std::vector<double> my_params;
    for (const std::size_t j : mine)
      my_params.insert(my_params.end(), params.begin() + static_cast<std::ptrdiff_t>(j * n_params),
                       params.begin() + static_cast<std::ptrdiff_t>((j + 1) * n_params));
    const auto engine = make_validation_engine(prepared, bars, device, threads);
    const std::vector<double> returns = engine->run_candidates(my_params, v.train, period_last).period_returns;
    const std::vector<double> test = v.test ? engine->run_candidates(my_params, *v.test, {}).metrics : std::vector<double>{};
    for (std::size_t q = 0; q < mine.size(); ++q) {
      for (std::size_t t = 0; t < p; ++t) v.period_returns[t * k + mine[q]] = returns[t * mine.size() + q];
      if (v.test) std::copy_n(test.begin() + static_cast<std::ptrdiff_t>(q * n_metrics), n_metrics,
                              v.test_metrics.begin() + static_cast<std::ptrdiff_t>(mine[q] * n_metrics));
    }
  }
  // Candidate j travels as its p period returns, then its test metrics.
  const std::size_t width = p + (v.test ? n_metrics : 0);
  gather_pieces(
      exchange, k,
      [&](std::size_t j) {
        std::vector<double> out;
        for (std::size_t t = 0; t < p; ++t) out.push_back(v.period_returns[t * k + j]);
        if (v.test) out.insert(out.end(), v.test_metrics.begin() + static_cast<std::ptrdiff_t>(j * n_metrics),
                               v.test_metrics.begin() + static_cast<std::ptrdiff_t>((j + 1) * n_metrics));
        return out;
      },
      [&](std::size_t j, const std::vector<double>& values) {
        if (values.size() != width)
          throw Error(ErrorCategory::internal, "validation: a candidate of the wrong shape arrived");
        for (std::size_t t = 0; t < p; ++t) v.period_returns[t * k + j] = values[t];
        if (v.test) std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(p), n_metrics,
                                v.test_metrics.begin() + static_cast<std::ptrdiff_t>(j * n_metrics));
      });
}

}  // namespace kbt::detail
