// The verification stage (include/kbt/verify/verify.hpp): determinism across thread
// counts, equality with independent one-combo backtests, flags, ranks, windows.

#include <gtest/gtest.h>
#include <kbt/sweep/backtest.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/verify/verify.hpp>

#include <cmath>
#include <cstring>
#include <map>

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

const char* kConfig = R"(
data: unused.h5
strategy:
  params:
    fast: {range: [2, 20, 2]}
    slow: {range: [10, 60, 5]}
  constraints: ["fast < slow"]
  signals:
    f: sma(close, fast)
    s: sma(close, slow)
  position: where(f > s, 1, -1)
simulation:
  fee_bps: 5
  slippage_bps: 1
sweep:
  device: reference
  objective: {metric: sharpe, direction: max, min_trades: 3}
  top_k: 20
)";

struct Fixture {
  kbt::RunConfig config;
  kbt::BarData bars;
  kbt::SweepResults sweep;
};

// One sweep shared by every test (small: 9 x 11 grid on 800 bars).
const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture x;
    x.config = kbt::parse_run_config(kConfig, "verify_test.yaml", "");
    kbt::SynthOptions o;
    o.n_symbols = 1;
    o.n_bars = 800;
    o.seed = 7;
    x.bars = kbt::synth_bars(o);
    kbt::SweepRequest request;
    request.threads = 1;
    request.quiet = true;
    x.sweep = kbt::run_sweep(x.config, x.bars, request).results;
    return x;
  }();
  return f;
}

std::map<std::string, double> params_of(const kbt::SweepResults& r, std::size_t row) {
  const kbt::RowTable t = kbt::read_rows(*r.rows, {row});
  std::map<std::string, double> p;
  for (std::size_t i = 0; i < r.param_names.size(); ++i) p[r.param_names[i]] = t.params[i];
  return p;
}

// Every row's metrics, row-major.
std::vector<double> all_metrics(const kbt::SweepResults& r) { return kbt::read_all_rows(*r.rows).metrics; }

// The sweep with one metric of one row replaced (and no best rows: the
// candidates are selected again from the rows).
kbt::SweepResults with_metric(const kbt::SweepResults& r, std::size_t row, kbt::Metric metric, double value) {
  kbt::RowTable t = kbt::read_all_rows(*r.rows);
  t.metrics[row * kbt::n_metrics + static_cast<std::size_t>(metric)] = value;
  kbt::SweepResults out = r;
  out.rows = std::make_shared<kbt::MemoryRows>(r.param_names, t.combo_ids, t.params, t.metrics, r.rows->metric_mask());
  out.best = {};
  out.top_k = 0;
  return out;
}

// Every eligible row (more than the grid), on `threads` threads.
kbt::VerifyRequest request_with_threads(int threads) {
  kbt::VerifyRequest r;
  r.top_n = 5000;
  r.threads = threads;
  return r;
}

void expect_identical(const kbt::VerificationResults& a, const kbt::VerificationResults& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.combo_ids, b.combo_ids);
  EXPECT_EQ(a.rank_before, b.rank_before);
  EXPECT_EQ(a.rank_after, b.rank_after);
  EXPECT_EQ(a.mismatch, b.mismatch);
  EXPECT_EQ(a.rank_moved, b.rank_moved);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (std::size_t i = 0; i < a.metrics.size(); ++i) ASSERT_TRUE(same_bits(a.metrics[i], b.metrics[i])) << i;
}

}  // namespace

TEST(Verify, IdenticalAtOneTwoAndFourThreads) {
  const auto& f = fixture();
  const auto one = kbt::verify_candidates(f.config, f.bars, f.sweep, request_with_threads(1));
  const auto two = kbt::verify_candidates(f.config, f.bars, f.sweep, request_with_threads(2));
  const auto four = kbt::verify_candidates(f.config, f.bars, f.sweep, request_with_threads(4));
  EXPECT_EQ(one.threads, 1u);
  EXPECT_EQ(four.threads, 4u);
  ASSERT_GT(one.n(), 20u);
  expect_identical(one, two);
  expect_identical(one, four);
}

TEST(Verify, EqualsASequentialLoopOfIndependentBacktests) {
  // run_backtest compiles the strategy for one combo and infers
  // periods_per_year itself: an independent path to the same numbers.
  const auto& f = fixture();
  const auto v = kbt::verify_candidates(f.config, f.bars, f.sweep, request_with_threads(3));
  for (std::size_t i = 0; i < v.n(); ++i) {
    const auto sim = kbt::run_backtest(f.config, f.bars, params_of(f.sweep, v.rows[i]));
    for (std::size_t m = 0; m < kbt::n_metrics; ++m)
      ASSERT_TRUE(same_bits(sim.metrics[m], v.metrics[i * kbt::n_metrics + m]))
          << "candidate " << i << " metric " << kbt::metric_names()[m];
  }
}

TEST(Verify, CandidatesAreTheSweepsBestInOrder) {
  const auto& f = fixture();
  // Every eligible combo (n_trades >= 3, finite sharpe), counted by hand.
  const std::vector<double> metrics = all_metrics(f.sweep);
  std::size_t eligible = 0;
  for (std::size_t r = 0; r < f.sweep.n_rows(); ++r) {
    const double* m = &metrics[r * kbt::n_metrics];
    eligible += !std::isnan(m[int(kbt::Metric::sharpe)]) && m[int(kbt::Metric::n_trades)] >= 3;
  }
  kbt::VerifyRequest every;
  every.top_n = 5000;  // more than the grid
  const auto all = kbt::verify_candidates(f.config, f.bars, f.sweep, every);
  EXPECT_EQ(all.n(), eligible);
  for (std::size_t i = 0; i + 1 < all.n(); ++i) {
    const double a = metrics[all.rows[i] * kbt::n_metrics + int(kbt::Metric::sharpe)];
    const double b = metrics[all.rows[i + 1] * kbt::n_metrics + int(kbt::Metric::sharpe)];
    EXPECT_TRUE(a > b || (a == b && all.combo_ids[i] < all.combo_ids[i + 1])) << i;
    EXPECT_EQ(all.rank_before[i], i + 1);
  }
  kbt::VerifyRequest five;
  five.top_n = 5;
  const auto v = kbt::verify_candidates(f.config, f.bars, f.sweep, five);
  ASSERT_EQ(v.n(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(v.rows[i], f.sweep.best.rows[i]);
}

// verify.top_n: auto (docs/verify.md "How many"): 1 % of the rows rounded up,
// at least 20 (every row of a smaller sweep), at most 1,000.
TEST(Verify, AutomaticCountIsAShareOfTheRowsWithinBounds) {
  EXPECT_EQ(kbt::automatic_verify_count(0), 0u);
  EXPECT_EQ(kbt::automatic_verify_count(7), 7u);
  EXPECT_EQ(kbt::automatic_verify_count(60), 20u);
  EXPECT_EQ(kbt::automatic_verify_count(2000), 20u);
  EXPECT_EQ(kbt::automatic_verify_count(2001), 21u);
  EXPECT_EQ(kbt::automatic_verify_count(5000), 50u);
  EXPECT_EQ(kbt::automatic_verify_count(99999), 1000u);
  EXPECT_EQ(kbt::automatic_verify_count(100000000), 1000u);
  // On the fixture: the first candidates of the explicit list, and it says so.
  const auto& f = fixture();
  const std::uint64_t rows = f.sweep.n_rows();
  ASSERT_GT(rows, 20u);
  const auto automatic = kbt::verify_candidates(f.config, f.bars, f.sweep, {});
  kbt::VerifyRequest twenty;
  twenty.top_n = 20;
  const auto explicit_twenty = kbt::verify_candidates(f.config, f.bars, f.sweep, twenty);
  ASSERT_EQ(automatic.n(), 20u);
  EXPECT_EQ(automatic.rows, explicit_twenty.rows);
  EXPECT_EQ(automatic.selection, "the best 20 of " + std::to_string(rows) +
                                     " rows by sharpe (verify.top_n: auto, 1% of the rows, at least 20, at most 1,000)");
  EXPECT_EQ(explicit_twenty.selection, "the best 20 of " + std::to_string(rows) + " rows by sharpe (verify.top_n: 20)");
}

// The progress callback counts every candidate once, ending at the total.
TEST(Verify, ProgressCountsEveryCandidate) {
  const auto& f = fixture();
  kbt::VerifyRequest r = request_with_threads(3);
  r.top_n = 25;
  std::vector<std::size_t> seen;
  r.progress = [&seen](std::size_t done, std::size_t total) {
    EXPECT_EQ(total, 25u);
    seen.push_back(done);
  };
  const auto v = kbt::verify_candidates(f.config, f.bars, f.sweep, r);
  ASSERT_EQ(v.n(), 25u);
  ASSERT_EQ(seen.size(), 25u);
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i + 1);
}

TEST(Verify, SameWindowHasNoMismatchAndUnmovedRanks) {
  const auto& f = fixture();
  const auto v = kbt::verify_candidates(f.config, f.bars, f.sweep, {});
  EXPECT_TRUE(v.same_window);
  EXPECT_TRUE(v.mismatch_checked);
  EXPECT_FALSE(v.rank_checked);  // an fp64 sweep is checked by bits
  EXPECT_EQ(v.window_begin, 0u);
  EXPECT_EQ(v.window_end, 800u);
  EXPECT_EQ(v.n_mismatches(), 0u);
  for (std::size_t i = 0; i < v.n(); ++i) EXPECT_EQ(v.rank_after[i], v.rank_before[i]) << i;
  EXPECT_DOUBLE_EQ(kbt::verification_rank_correlation(v), 1.0);
  // Every metric the sweep computed for every row (its metric set).
  const std::vector<double> metrics = all_metrics(f.sweep);
  const kbt::MetricMask mask = f.sweep.rows->metric_mask();
  ASSERT_TRUE(kbt::has_metric(mask, int(kbt::Metric::sharpe)));
  for (std::size_t i = 0; i < v.n(); ++i)
    for (std::size_t m = 0; m < kbt::n_metrics; ++m)
      if (kbt::has_metric(mask, static_cast<int>(m)))
        ASSERT_TRUE(same_bits(v.metrics[i * kbt::n_metrics + m], metrics[v.rows[i] * kbt::n_metrics + m]));
}

TEST(Verify, AnotherWindowEqualsABacktestOnThatWindow) {
  const auto& f = fixture();
  kbt::VerifyRequest request;
  request.score_start_bar = 300;
  request.score_end_time_ns = f.bars.timestamps[650];  // first bar at or after: 650, exclusive
  request.threads = 2;
  const auto v = kbt::verify_candidates(f.config, f.bars, f.sweep, request);
  EXPECT_FALSE(v.same_window);
  EXPECT_FALSE(v.mismatch_checked);
  EXPECT_EQ(v.n_mismatches(), 0u);
  EXPECT_EQ(v.window_begin, 300u);
  EXPECT_EQ(v.window_end, 650u);
  EXPECT_NE(v.window.find("bars [300, 650)"), std::string::npos) << v.window;

  kbt::RunConfig windowed = f.config;
  windowed.simulation.score_start_bar = 300;
  kbt::SimulationOptions options;
  options.score_end_bar = 650;
  for (std::size_t i = 0; i < v.n(); ++i) {
    const auto sim = kbt::run_backtest(windowed, f.bars, params_of(f.sweep, v.rows[i]), options);
    ASSERT_EQ(sim.window.begin, 300u);
    for (std::size_t m = 0; m < kbt::n_metrics; ++m)
      ASSERT_TRUE(same_bits(sim.metrics[m], v.metrics[i * kbt::n_metrics + m])) << i << " " << kbt::metric_names()[m];
  }
  // rank_after orders the still-eligible candidates by the verified sharpe.
  std::vector<std::size_t> by_rank(v.n() + 1, v.n());
  std::size_t ranked = 0;
  for (std::size_t i = 0; i < v.n(); ++i) {
    const double* m = &v.metrics[i * kbt::n_metrics];
    const bool ok = !std::isnan(m[int(kbt::Metric::sharpe)]) && m[int(kbt::Metric::n_trades)] >= 3;
    EXPECT_EQ(v.rank_after[i] > 0, ok) << i;
    if (v.rank_after[i] > 0) by_rank[v.rank_after[i]] = i, ++ranked;
  }
  for (std::size_t k = 1; k < ranked; ++k) {
    ASSERT_LT(by_rank[k + 1], v.n());
    EXPECT_GE(v.metrics[by_rank[k] * kbt::n_metrics + int(kbt::Metric::sharpe)],
              v.metrics[by_rank[k + 1] * kbt::n_metrics + int(kbt::Metric::sharpe)]);
  }
}

TEST(Verify, AnotherObjectiveRanksByIt) {
  const auto& f = fixture();
  kbt::VerifyRequest request;
  request.objective = kbt::Objective{"max_drawdown", true, 0};  // least deep drawdown first
  const auto v = kbt::verify_candidates(f.config, f.bars, f.sweep, request);
  EXPECT_EQ(v.objective.metric, "max_drawdown");
  EXPECT_TRUE(v.mismatch_checked);
  EXPECT_EQ(v.n_mismatches(), 0u);
  double best = -1e300;
  std::size_t best_i = 0;
  for (std::size_t i = 0; i < v.n(); ++i) {
    const double dd = v.metrics[i * kbt::n_metrics + int(kbt::Metric::max_drawdown)];
    if (dd > best || (dd == best && v.combo_ids[i] < v.combo_ids[best_i])) best = dd, best_i = i;
  }
  EXPECT_EQ(v.rank_after[best_i], 1u);
}

TEST(Verify, MismatchFlagsExactlyTheAlteredCandidate) {
  const auto& f = fixture();
  const std::size_t row = f.sweep.best.rows[3];
  const double equity = f.sweep.best.metrics_of(3)[int(kbt::Metric::final_equity)];
  // One ulp: a bug indicator, not a rank change.
  const kbt::SweepResults altered = with_metric(f.sweep, row, kbt::Metric::final_equity, std::nextafter(equity, 1e300));
  const auto v = kbt::verify_candidates(f.config, f.bars, altered, {});
  EXPECT_EQ(v.n_mismatches(), 1u);
  EXPECT_EQ(v.mismatch[3], 1u);
  EXPECT_EQ(v.rows[3], row);
}

TEST(Verify, Fp32SweepFlagsRanksThatMovedBeyondTheThreshold) {
  const auto& f = fixture();
  const std::size_t row = f.sweep.best.rows[15];  // sweep rank 16 ...
  const kbt::SweepResults fp32 = with_metric(f.sweep, row, kbt::Metric::sharpe, 1e9);  // ... claimed rank 1
  kbt::VerifyRequest request;
  request.sweep_precision = "fp32";
  request.rank_threshold = 10;
  const auto v = kbt::verify_candidates(f.config, f.bars, fp32, request);
  EXPECT_TRUE(v.rank_checked);
  EXPECT_FALSE(v.mismatch_checked);
  EXPECT_EQ(v.n_mismatches(), 0u);
  ASSERT_EQ(v.rows[0], row);
  EXPECT_EQ(v.rank_after[0], 16u);  // back where fp64 has it: moved by 15 > 10
  EXPECT_EQ(v.rank_moved[0], 1u);
  EXPECT_EQ(v.n_rank_moved(), 1u);  // the others moved by one rank
  request.rank_threshold = 15;
  EXPECT_EQ(kbt::verify_candidates(f.config, f.bars, fp32, request).n_rank_moved(), 0u);
}

TEST(Verify, RankCorrelationIsSpearmanOverStillEligibleCandidates) {
  kbt::VerificationResults v;
  v.combo_ids = {10, 11, 12, 13, 14};
  v.rank_before = {1, 2, 3, 4, 5};
  v.rank_after = {2, 1, 0, 4, 3};  // candidate 3 no longer eligible
  // Re-ranked before: 1 2 _ 3 4; d = -1, 1, -1, 1; 1 - 6*4 / (4*15) = 0.6.
  EXPECT_DOUBLE_EQ(kbt::verification_rank_correlation(v), 0.6);
  v.rank_after = {0, 0, 0, 0, 1};
  EXPECT_TRUE(std::isnan(kbt::verification_rank_correlation(v)));
}

TEST(Verify, BadRequestsAreConfigErrors) {
  const auto& f = fixture();
  const auto category = [&](const kbt::VerifyRequest& r) {
    try {
      kbt::verify_candidates(f.config, f.bars, f.sweep, r);
    } catch (const kbt::Error& e) {
      return std::string(kbt::to_string(e.category())) + ": " + e.what();
    }
    return std::string("no error");
  };
  kbt::VerifyRequest r;
  r.top_n = -1;
  EXPECT_EQ(category(r).rfind("config: verify.top_n", 0), 0u) << category(r);
  r = {};
  r.objective = kbt::Objective{"sharp", true, 0};
  EXPECT_NE(category(r).find("unknown metric 'sharp'"), std::string::npos) << category(r);
  r = {};
  r.score_start_bar = 900;
  EXPECT_NE(category(r).find("config: verification window"), std::string::npos) << category(r);
  r = {};
  r.score_start_bar = 500;
  r.score_end_bar = 400;
  EXPECT_NE(category(r).find("holds no bar"), std::string::npos) << category(r);
}

TEST(Verify, TopNZeroVerifiesNothing) {
  const auto& f = fixture();
  kbt::VerifyRequest r;
  r.top_n = 0;
  const auto v = kbt::verify_candidates(f.config, f.bars, f.sweep, r);
  EXPECT_EQ(v.n(), 0u);
  EXPECT_NE(kbt::format_verification_summary(v).find("verification: 0 candidates"), std::string::npos);
}

TEST(Verify, SummaryNamesCountsMismatchesAndRanks) {
  const auto& f = fixture();
  const auto v = kbt::verify_candidates(f.config, f.bars, f.sweep, {});
  const std::string s = kbt::format_verification_summary(v, 3);
  EXPECT_NE(s.find("verification: " + std::to_string(v.n()) + " candidates"), std::string::npos) << s;
  EXPECT_NE(s.find("mismatches: 0 of " + std::to_string(v.n())), std::string::npos) << s;
  EXPECT_NE(s.find("Spearman 1"), std::string::npos) << s;
  EXPECT_NE(s.find("rank after"), std::string::npos) << s;
}

TEST(Verify, WindowBoundsParseAsBarIndexOrTimestamp) {
  std::optional<std::int64_t> bar, ns;
  kbt::parse_window_bound("120", "--score-start", bar, ns);
  EXPECT_EQ(bar, 120);
  EXPECT_FALSE(ns);
  kbt::parse_window_bound("2021-01-02", "--score-start", bar, ns);
  EXPECT_FALSE(bar);
  EXPECT_EQ(ns, 1609545600LL * 1000000000LL);
  EXPECT_THROW(kbt::parse_window_bound("soon", "--score-end", bar, ns), kbt::Error);
  EXPECT_THROW(kbt::parse_window_bound("-5", "--score-end", bar, ns), kbt::Error);
}
