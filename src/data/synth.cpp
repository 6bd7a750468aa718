// `kbt data synth`: deterministic regime-switching GBM bars, funding and exo
// series. The model is documented in docs/data-format.md ("Synthetic data");
// keep the two in step.

#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "data/portable_random.hpp"

namespace kbt {
namespace {

// Products feeding a sum are rounded explicitly (no FMA), see portable_random.hpp.
using detail::rounded;

constexpr double kNsPerYear = 365.25 * 86400.0 * 1e9;
constexpr double kNsPerDay = 86400.0 * 1e9;

struct Regime {
  double drift;          // annualized
  double vol;            // annualized
  double mean_days;      // expected stay
  double volume_factor;  // volume multiplier
  double funding_bias;   // mean funding rate per funding event
};
// calm, trending, turbulent
const Regime kRegimes[3] = {
    {0.10, 0.25, 30.0, 1.0, 0.00005},
    {0.40, 0.55, 20.0, 1.5, 0.00015},
    {-0.60, 1.10, 7.0, 3.0, -0.00005},
};

// Independent stream per (kind, index): symbols and exo series never share draws.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t kind, std::uint64_t index) {
  std::uint64_t state = seed;
  std::uint64_t x = detail::splitmix64(state) ^ (kind * 0xd1b54a32d192ed03ULL);
  x = detail::splitmix64(x) ^ (index * 0x8cb92ba72f3d8dd7ULL);
  return detail::splitmix64(x);
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  const std::int64_t m = a % b;
  return m < 0 ? m + b : m;
}

[[noreturn]] void bad_option(const std::string& msg) { throw Error(ErrorCategory::config, "synth: " + msg); }

void check_options(const SynthOptions& o) {
  if (o.n_symbols == 0) bad_option("the number of symbols must be at least 1");
  if (o.n_bars == 0) bad_option("the number of bars must be at least 1");
  if (o.bar_ns <= 0) bad_option("the bar spacing must be positive");
  if (o.funding_interval_ns <= 0) bad_option("the funding interval must be positive");
  if (o.exo_interval_ns <= 0) bad_option("the exo sampling interval must be positive");
  if (!(o.start_price > 0.0) || !std::isfinite(o.start_price)) bad_option("the start price must be positive");
  if (!(o.listings >= 0.0 && o.listings <= 1.0)) bad_option("the listings fraction must be in [0, 1]");
  if (!o.symbols.empty() && o.symbols.size() != o.n_symbols)
    bad_option(std::to_string(o.symbols.size()) + " symbol names for " + std::to_string(o.n_symbols) + " symbols");
  if (!o.venues.empty() && o.venues.size() != o.n_symbols)
    bad_option(std::to_string(o.venues.size()) + " venues for " + std::to_string(o.n_symbols) + " symbols");
  std::int64_t span = 0, end = 0;
  if (__builtin_mul_overflow(static_cast<std::int64_t>(o.n_bars - 1), o.bar_ns, &span) ||
      __builtin_add_overflow(o.start_ns, span, &end))
    bad_option("start + bars x spacing does not fit in int64 nanoseconds");
  std::set<std::string> seen;
  for (const auto& name : o.exo_names) {
    if (name.empty() || name.find('/') != std::string::npos) bad_option("invalid exo name '" + name + "'");
    if (!seen.insert(name).second) bad_option("exo name '" + name + "' given twice");
  }
}

}  // namespace

std::string synth_symbol_name(std::size_t i) {
  if (i < 26) return std::string(3, static_cast<char>('A' + i));
  char buf[32];
  std::snprintf(buf, sizeof buf, "S%04zu", i);
  return buf;
}

MarketData synth_market_data(const SynthOptions& o) {
  check_options(o);
  MarketData data;
  BarData& bars = data.bars;
  const std::size_t n = o.n_bars;
  bars.timestamps.resize(n);
  for (std::size_t b = 0; b < n; ++b) bars.timestamps[b] = o.start_ns + static_cast<std::int64_t>(b) * o.bar_ns;
  for (std::size_t s = 0; s < o.n_symbols; ++s)
    bars.symbols.push_back(o.symbols.empty() ? synth_symbol_name(s) : o.symbols[s]);
  bars.venues = o.venues;

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::size_t total = o.n_symbols * n;
  for (const auto& name : required_bar_columns()) bars.columns[name].assign(total, 0.0);
  if (o.funding) bars.columns["funding_rate"].assign(total, nan);
  auto& open = bars.columns["open"];
  auto& high = bars.columns["high"];
  auto& low = bars.columns["low"];
  auto& close = bars.columns["close"];
  auto& volume = bars.columns["volume"];

  const double dt = static_cast<double>(o.bar_ns) / kNsPerYear;
  const double sqrt_dt = std::sqrt(dt);
  const double bar_days = static_cast<double>(o.bar_ns) / kNsPerDay;

  for (std::size_t s = 0; s < o.n_symbols; ++s) {
    detail::NormalSource rng(stream_seed(o.seed, 1, s));
    // Per-symbol character: price level, volatility scale, starting regime.
    double price = o.start_price * (0.5 + rng.uniform());
    const double vol_scale = 0.75 + rounded(0.5 * rng.uniform());
    int regime = static_cast<int>(rng.uniform() * 3.0);
    const std::size_t row = s * n;
    for (std::size_t b = 0; b < n; ++b) {
      // Every draw is made on every bar whatever the options, so that enabling
      // funding does not change prices.
      const double u_switch = rng.uniform();
      const double u_pick = rng.uniform();
      const double z_ret = rng.normal();
      const double z_up = rng.normal();
      const double z_dn = rng.normal();
      const double z_vol = rng.normal();
      const double z_fund = rng.normal();

      const double leave = std::min(0.5, bar_days / kRegimes[regime].mean_days);
      if (b > 0 && u_switch < leave) regime = (regime + 1 + (u_pick < 0.5 ? 0 : 1)) % 3;
      const Regime& g = kRegimes[regime];
      const double sigma = g.vol * vol_scale;

      const double o_px = price;
      const double log_ret = rounded((g.drift - rounded(0.5 * sigma * sigma)) * dt) + rounded(sigma * sqrt_dt * z_ret);
      const double c_px = o_px * detail::portable_exp(log_ret);
      const double wick = 0.6 * sigma * sqrt_dt;
      const double hi_body = std::max(o_px, c_px);
      const double lo_body = std::min(o_px, c_px);
      open[row + b] = o_px;
      close[row + b] = c_px;
      high[row + b] = std::max(hi_body, hi_body * detail::portable_exp(wick * std::fabs(z_up)));
      low[row + b] = std::min(lo_body, lo_body * detail::portable_exp(-wick * std::fabs(z_dn)));
      const double v = 1000.0 * g.volume_factor * detail::portable_exp(0.4 * z_vol) *
                       (1.0 + rounded(2.0 * std::fabs(z_ret)));
      volume[row + b] = std::floor(v) + 1.0;
      if (o.funding && floor_mod(bars.timestamps[b], o.funding_interval_ns) < o.bar_ns)
        bars.columns["funding_rate"][row + b] = g.funding_bias + rounded(0.0001 * z_fund);
      price = c_px;
    }
  }

  // Listings and delistings, from a stream of their own, so that the prices do
  // not depend on them: listed at a bar of the first half, delisted at a bar of
  // the second, so that every symbol trades at least one bar.
  for (std::size_t s = 0; s < o.n_symbols && o.listings > 0.0; ++s) {
    detail::NormalSource rng(stream_seed(o.seed, 3, s));
    const double u_list = rng.uniform(), at_list = rng.uniform();
    const double u_delist = rng.uniform(), at_delist = rng.uniform();
    const std::size_t half = n / 2;
    const std::size_t first = u_list < o.listings ? static_cast<std::size_t>(at_list * static_cast<double>(half)) : 0;
    const std::size_t end =
        u_delist < o.listings ? half + 1 + static_cast<std::size_t>(at_delist * static_cast<double>(n - half - 1)) : n;
    for (auto& [name, column] : bars.columns)
      for (std::size_t b = 0; b < n; ++b)
        if (b < first || b >= end) column[s * n + b] = nan;
  }

  // Exo: a slow log random walk sampled every exo_interval_ns, offset by a
  // quarter interval from the first bar so that the ASOF join matters and
  // the first bars have no value yet.
  const std::int64_t last = bars.timestamps.back();
  for (std::size_t e = 0; e < o.exo_names.size(); ++e) {
    detail::NormalSource rng(stream_seed(o.seed, 2, e));
    ExoSeries series;
    double level = 100.0 * (0.5 + rng.uniform());
    for (std::int64_t t = o.start_ns + o.exo_interval_ns / 4; t <= last; t += o.exo_interval_ns) {
      series.timestamps.push_back(t);
      series.values.push_back(level);
      level *= detail::portable_exp(0.03 * rng.normal());
      if (t > std::numeric_limits<std::int64_t>::max() - o.exo_interval_ns) break;
    }
    data.exo.emplace(o.exo_names[e], std::move(series));
  }
  return data;
}

BarData synth_bars(const SynthOptions& options) {
  MarketData data = synth_market_data(options);
  for (const auto& [name, series] : data.exo) data.bars.exo[name] = asof_join(data.bars.timestamps, series);
  return std::move(data.bars);
}

}  // namespace kbt
