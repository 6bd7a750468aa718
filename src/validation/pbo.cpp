// Probability of Backtest Overfitting (include/kbt/validation/pbo.hpp,
// docs/validation.md "PBO").

#include <kbt/validation/pbo.hpp>

#include <kbt/core/detail/upload.hpp>
#include <kbt/core/error.hpp>

#include <string>

namespace kbt {
namespace {

template <class ExecSpace>
void run_splits(const std::vector<double>& sum, const std::vector<double>& sum_sq, int blocks, int candidates,
                double half_len, PboResult& r) {
  using Mem = typename ExecSpace::memory_space;
  detail::CscvSplits<ExecSpace> f;
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> s("kbt::pbo_sum", blocks, candidates),
      q("kbt::pbo_sum_sq", blocks, candidates);
  {
    auto hs = Kokkos::create_mirror_view(s);
    auto hq = Kokkos::create_mirror_view(q);
    for (int b = 0; b < blocks; ++b)
      for (int j = 0; j < candidates; ++j) hs(b, j) = sum[b * candidates + j], hq(b, j) = sum_sq[b * candidates + j];
    Kokkos::deep_copy(s, hs);
    Kokkos::deep_copy(q, hq);
  }
  f.sum = s;
  f.sum_sq = q;
  f.blocks = blocks;
  f.candidates = candidates;
  f.half_len = half_len;
  const auto n = static_cast<std::int64_t>(r.splits);
  f.logit = Kokkos::View<double*, Mem>("kbt::pbo_logit", r.splits);
  f.is_sharpe = Kokkos::View<double*, Mem>("kbt::pbo_is", r.splits);
  f.oos_sharpe = Kokkos::View<double*, Mem>("kbt::pbo_oos", r.splits);
  Kokkos::parallel_for("kbt::pbo_splits", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, n), f);
  ExecSpace().fence();
  const auto copy = [](const Kokkos::View<double*, Mem>& v) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    return std::vector<double>(h.data(), h.data() + h.extent(0));
  };
  r.logits = copy(f.logit);
  r.is_sharpe = copy(f.is_sharpe);
  r.oos_sharpe = copy(f.oos_sharpe);
}

}  // namespace

PboResult probability_of_backtest_overfitting(const std::vector<double>& returns, std::size_t periods,
                                              std::size_t candidates, std::size_t blocks, const std::string& device,
                                              const std::string& what) {
  if (blocks < 2 || blocks % 2 != 0)
    throw Error(ErrorCategory::config, what + ": the number of blocks must be even and at least 2 (got " +
                                           std::to_string(blocks) + ")");
  if (blocks > 26)
    throw Error(ErrorCategory::config, what + ": at most 26 blocks (C(26, 13) = 10,400,600 splits; got " +
                                           std::to_string(blocks) + ")");
  if (blocks > periods)
    throw Error(ErrorCategory::config, what + ": " + std::to_string(blocks) + " blocks need at least as many periods, "
                                           "and there are " + std::to_string(periods));
  if (candidates < 2)
    throw Error(ErrorCategory::config, what + ": PBO ranks candidates against each other: it needs at least 2 (got " +
                                           std::to_string(candidates) + ")");
  if (returns.size() != periods * candidates) throw Error(ErrorCategory::internal, "pbo: matrix of the wrong size");
  PboResult r;
  r.blocks = blocks;
  r.candidates = candidates;
  const std::size_t len = periods / blocks, skip = periods - len * blocks;
  r.periods_used = len * blocks;
  if (len < 2 && blocks / 2 * len < 2)
    throw Error(ErrorCategory::config, what + ": blocks of one period leave a Sharpe ratio of one observation");
  std::vector<double> sum(blocks * candidates, 0.0), sum_sq(blocks * candidates, 0.0);
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::size_t t = skip + b * len; t < skip + (b + 1) * len; ++t)
      for (std::size_t j = 0; j < candidates; ++j) {
        const double x = returns[t * candidates + j];
        sum[b * candidates + j] += x;
        sum_sq[b * candidates + j] += x * x;
      }
  r.splits = detail::binomial(static_cast<int>(blocks), static_cast<int>(blocks / 2));
  const double half = double(blocks / 2 * len);
  const int nb = static_cast<int>(blocks), nc = static_cast<int>(candidates);
  bool ran = false;
  (void)device;  // without CUDA or OpenMP: the default host space
#ifdef KOKKOS_ENABLE_CUDA
  if (device == "cuda") run_splits<Kokkos::Cuda>(sum, sum_sq, nb, nc, half, r), ran = true;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (device == "openmp") run_splits<Kokkos::OpenMP>(sum, sum_sq, nb, nc, half, r), ran = true;
#endif
  if (!ran) run_splits<Kokkos::DefaultHostExecutionSpace>(sum, sum_sq, nb, nc, half, r);
  // Host reductions in split order (the same at any thread count).
  double below = 0, loss = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = double(r.splits);
  for (std::size_t s = 0; s < r.splits; ++s) {
    below += r.logits[s] <= 0 ? 1 : 0;
    loss += r.oos_sharpe[s] < 0 ? 1 : 0;
    sx += r.is_sharpe[s], sy += r.oos_sharpe[s];
    sxx += r.is_sharpe[s] * r.is_sharpe[s], sxy += r.is_sharpe[s] * r.oos_sharpe[s];
  }
  r.pbo = below / n;
  r.prob_oos_loss = loss / n;
  const double den = n * sxx - sx * sx;
  r.degradation_slope = den != 0 ? (n * sxy - sx * sy) / den : 0.0;
  r.degradation_intercept = (sy - r.degradation_slope * sx) / n;
  return r;
}

}  // namespace kbt
