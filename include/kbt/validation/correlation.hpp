#pragma once
// The correlation of candidates' period returns (docs/validation.md "Effective
// number of trials"): C = Z^T Z / (P - 1) of the standardised returns Z
// ([P][K]), by KokkosBlas::gemm("T", "N") on a Kokkos space, with two
// summaries: the mean off-diagonal correlation and the order-2 entropy
// effective rank (sum of eigenvalues)^2 / (sum of their squares) =
// trace(C)^2 / ||C||_F^2, which needs no eigen-decomposition.

#include <cstddef>
#include <string>
#include <vector>

namespace kbt {

struct CorrelationSummary {
  std::size_t candidates = 0;
  std::vector<double> matrix;   // [K][K], row-major (symmetric)
  double mean_off_diagonal = 0;
  double effective_rank = 0;
};

// `returns`: [periods][candidates], row-major. A candidate whose returns do
// not vary has a zero row and column. `device`: "serial", "openmp", "cuda"
// (anything else: the default host space).
CorrelationSummary correlation_of(const std::vector<double>& returns, std::size_t periods, std::size_t candidates,
                                  const std::string& device);

}  // namespace kbt
