#include "support/synthetic.hpp"

#include <cmath>

namespace kbt::test {

kbt::BarData synthetic_bars(std::size_t n_symbols, std::size_t n_bars, std::uint64_t seed, bool funding) {
  kbt::SynthOptions o;
  o.n_symbols = n_symbols;
  o.n_bars = n_bars;
  o.seed = seed;
  o.funding = funding;
  return kbt::synth_bars(o);
}

void add_gap(kbt::BarData& bars, std::size_t symbol, std::size_t first, std::size_t count) {
  const std::size_t n_bars = bars.n_bars();
  for (const char* col : {"open", "high", "low", "close", "volume"}) {
    auto& v = bars.columns.at(col);
    for (std::size_t b = first; b < first + count; ++b) v[symbol * n_bars + b] = std::nan("");
  }
}

namespace {
std::string range(IntRange r) {
  return "{range: [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + ", " + std::to_string(r.step) + "]}";
}
}  // namespace

std::string sma_cross_yaml(IntRange fast, IntRange slow, int fee_bps) {
  return "data: unused.h5\n"
         "strategy:\n"
         "  params:\n"
         "    fast: " + range(fast) + "\n"
         "    slow: " + range(slow) + "\n"
         "  constraints: [\"fast < slow\"]\n"
         "  signals:\n"
         "    f: sma(close, fast)\n"
         "    s: sma(close, slow)\n"
         "  position: where(f > s, 1, -1)\n"
         "simulation: {fee_bps: " + std::to_string(fee_bps) + "}\n";
}

kbt::BarData first_bars(const kbt::BarData& bars, std::size_t n) {
  const std::size_t nb = bars.n_bars();
  if (n >= nb) return bars;
  kbt::BarData c = bars;
  for (auto& [name, col] : c.columns) {
    std::vector<double> kept;
    for (std::size_t s = 0; s < bars.n_symbols(); ++s)
      kept.insert(kept.end(), col.begin() + static_cast<long>(s * nb), col.begin() + static_cast<long>(s * nb + n));
    col = kept;
  }
  for (auto& [name, series] : c.exo) series.resize(n);
  c.timestamps.resize(n);
  return c;
}

kbt::ParamSpec param_axis(const std::string& name, std::vector<double> values) {
  kbt::ParamSpec p;
  p.name = name;
  p.values = std::move(values);
  return p;
}

}  // namespace kbt::test
