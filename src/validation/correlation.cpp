// The candidates' correlation matrix by KokkosBlas::gemm (include/kbt/validation/correlation.hpp).

#include <kbt/validation/correlation.hpp>

#include <kbt/core/error.hpp>

#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>

#include <cmath>

namespace kbt {
namespace {

template <class ExecSpace>
std::vector<double> gram_on(const std::vector<double>& z, std::size_t periods, std::size_t k) {
  using Matrix = Kokkos::View<double**, Kokkos::LayoutLeft, typename ExecSpace::memory_space>;
  Matrix zd("kbt::standardised_returns", periods, k), c("kbt::correlation", k, k);
  {
    auto h = Kokkos::create_mirror_view(zd);
    for (std::size_t t = 0; t < periods; ++t)
      for (std::size_t j = 0; j < k; ++j) h(t, j) = z[t * k + j];
    Kokkos::deep_copy(zd, h);
  }
  KokkosBlas::gemm("T", "N", 1.0 / double(periods - 1), zd, zd, 0.0, c);
  ExecSpace().fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  std::vector<double> out(k * k);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j) out[i * k + j] = h(i, j);
  return out;
}

}  // namespace

CorrelationSummary correlation_of(const std::vector<double>& returns, std::size_t periods, std::size_t candidates,
                                  const std::string& device) {
  if (returns.size() != periods * candidates) throw Error(ErrorCategory::internal, "correlation: wrong matrix size");
  CorrelationSummary s;
  s.candidates = candidates;
  if (periods < 2 || candidates == 0) return s;
  // Standardise each column: (r - mean) / std (n - 1); a constant column stays 0.
  std::vector<double> z(returns.size(), 0.0);
  for (std::size_t j = 0; j < candidates; ++j) {
    double mean = 0;
    for (std::size_t t = 0; t < periods; ++t) mean += returns[t * candidates + j];
    mean /= double(periods);
    double ss = 0;
    for (std::size_t t = 0; t < periods; ++t) {
      const double d = returns[t * candidates + j] - mean;
      ss += d * d;
    }
    const double sd = std::sqrt(ss / double(periods - 1));
    if (!(sd > 0)) continue;
    for (std::size_t t = 0; t < periods; ++t) z[t * candidates + j] = (returns[t * candidates + j] - mean) / sd;
  }
  bool ran = false;
  (void)device;
#ifdef KOKKOS_ENABLE_CUDA
  if (device == "cuda") s.matrix = gram_on<Kokkos::Cuda>(z, periods, candidates), ran = true;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (device == "openmp") s.matrix = gram_on<Kokkos::OpenMP>(z, periods, candidates), ran = true;
#endif
  if (!ran) s.matrix = gram_on<Kokkos::DefaultHostExecutionSpace>(z, periods, candidates);
  double off = 0, trace = 0, frob = 0;
  for (std::size_t i = 0; i < candidates; ++i)
    for (std::size_t j = 0; j < candidates; ++j) {
      const double c = s.matrix[i * candidates + j];
      frob += c * c;
      if (i == j) trace += c;
      else off += c;
    }
  const double pairs = double(candidates) * double(candidates - 1);
  s.mean_off_diagonal = pairs > 0 ? off / pairs : 0.0;
  s.effective_rank = frob > 0 ? trace * trace / frob : 0.0;
  return s;
}

}  // namespace kbt
