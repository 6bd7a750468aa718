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

PboBlocks pbo_blocks_for(std::size_t periods, std::size_t blocks, std::size_t candidates, const std::string& what) {
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
  PboBlocks b;
  b.blocks = blocks;
  b.len = periods / blocks;
  b.skip = periods - b.len * blocks;
  if (b.len < 2 && blocks / 2 * b.len < 2)
    throw Error(ErrorCategory::config, what + ": blocks of one period leave a Sharpe ratio of one observation");
  b.candidates = candidates;
  b.sum.assign(blocks * candidates, 0.0);
  b.sum_sq.assign(blocks * candidates, 0.0);
  return b;
}

void add_pbo_returns(PboBlocks& b, const double* returns, std::size_t count, std::size_t first) {
  if (first + count > b.candidates) throw Error(ErrorCategory::internal, "pbo: candidates out of range");
  for (std::size_t k = 0; k < b.blocks; ++k)
    for (std::size_t t = b.skip + k * b.len; t < b.skip + (k + 1) * b.len; ++t)
      for (std::size_t j = 0; j < count; ++j) {
        const double x = returns[t * count + j];
        b.sum[k * b.candidates + first + j] += x;
        b.sum_sq[k * b.candidates + first + j] += x * x;
      }
}

PboResult probability_of_backtest_overfitting(const std::vector<double>& returns, std::size_t periods,
                                              std::size_t candidates, std::size_t blocks, const std::string& device,
                                              const std::string& what) {
  PboBlocks b = pbo_blocks_for(periods, blocks, candidates, what);
  if (returns.size() != periods * candidates) throw Error(ErrorCategory::internal, "pbo: matrix of the wrong size");
  add_pbo_returns(b, returns.data(), candidates, 0);
  return pbo_of_blocks(b, device);
}

PboResult pbo_of_blocks(const PboBlocks& b, const std::string& device) {
  PboResult r;
  r.blocks = b.blocks;
  r.candidates = b.candidates;
  r.periods_used = b.len * b.blocks;
  const std::size_t blocks = b.blocks, len = b.len;
  const std::vector<double>& sum = b.sum;
  const std::vector<double>& sum_sq = b.sum_sq;
  r.splits = detail::binomial(static_cast<int>(blocks), static_cast<int>(blocks / 2));
  const double half = double(blocks / 2 * len);
  const int nb = static_cast<int>(blocks), nc = static_cast<int>(b.candidates);
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
