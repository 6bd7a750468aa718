// The cost model: fit on synthetic timing points with known coefficients,
// the non-negativity of the fit, break-even, and the complexity measure.

#include <gtest/gtest.h>
#include <kbt/calibration/calibration.hpp>
#include <kbt/calibration/calibration_workloads.hpp>
#include <kbt/core/error.hpp>

#include <cmath>
#include <cstdint>

namespace {

struct TrueModel {
  double fixed, base, per_instruction, per_read;
  double seconds(double combos, double bars, const kbt::Complexity& k) const {
    return fixed + (base + per_instruction * k.instructions + per_read * k.window_reads) * bars * combos;
  }
};

const kbt::Complexity kLadder[] = {{5, 0}, {15, 0}, {8, 70}, {54, 200}};

// A ladder like kbt calibrate's: combos x bars x four complexities.
std::vector<kbt::TimingPoint> synthetic_points(const std::string& space, const TrueModel& m, double noise,
                                               std::uint64_t seed = 1) {
  std::vector<kbt::TimingPoint> pts;
  std::uint64_t state = seed;
  auto uniform = [&] {  // deterministic LCG in [-1, 1)
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 4503599627370496.0 - 1.0;
  };
  for (double bars : {500.0, 5000.0})
    for (const kbt::Complexity& k : kLadder)
      for (double combos : {10.0, 100.0, 1000.0, 10000.0, 100000.0})
        pts.push_back({space, "w", combos, bars, k, m.seconds(combos, bars, k) * (1.0 + noise * uniform())});
  return pts;
}

TEST(CalibrationModel, RecoversExactCoefficients) {
  const TrueModel truth{2.5e-3, 3.7e-8, 5.0e-9, 1.9e-9};
  auto pts = synthetic_points("serial", truth, 0.0);
  // Points of another space must not disturb the fit.
  for (auto p : synthetic_points("cuda", {0.3, 1e-11, 1e-12, 3e-13}, 0.0)) pts.push_back(p);
  const kbt::SpaceCostModel m = kbt::fit_cost_model("serial", pts);
  EXPECT_EQ(m.space, "serial");
  EXPECT_EQ(m.n_points, 40u);
  EXPECT_NEAR(m.fixed_seconds / truth.fixed, 1.0, 1e-6);
  EXPECT_NEAR(m.per_bar_combo_base / truth.base, 1.0, 1e-6);
  EXPECT_NEAR(m.per_instruction / truth.per_instruction, 1.0, 1e-6);
  EXPECT_NEAR(m.per_window_read / truth.per_read, 1.0, 1e-6);
  EXPECT_LT(m.max_relative_residual, 1e-6);
  const kbt::SpaceCostModel g = kbt::fit_cost_model("cuda", pts);
  EXPECT_NEAR(g.fixed_seconds / 0.3, 1.0, 1e-6);
  EXPECT_NEAR(g.per_instruction / 1e-12, 1.0, 1e-6);
  EXPECT_NEAR(g.per_window_read / 3e-13, 1.0, 1e-6);
}

TEST(CalibrationModel, RecoversCoefficientsUnderNoise) {
  const TrueModel truth{4e-3, 2e-8, 5e-9, 2e-9};
  const kbt::SpaceCostModel m = kbt::fit_cost_model("serial", synthetic_points("serial", truth, 0.02, 7));
  EXPECT_NEAR(m.fixed_seconds / truth.fixed, 1.0, 0.05);
  for (const kbt::Complexity& k : kLadder)
    EXPECT_NEAR(m.per_bar_combo_seconds(k) / (truth.seconds(1, 1, k) - truth.fixed), 1.0, 0.03);
  EXPECT_LT(m.max_relative_residual, 0.06);
}

TEST(CalibrationModel, FitNeverReturnsNegativeCoefficients) {
  // Data whose unconstrained least-squares fixed term is negative.
  const TrueModel truth{-1e-3, 1e-8, 2e-9, 1e-9};
  std::vector<kbt::TimingPoint> pts;
  for (auto p : synthetic_points("serial", truth, 0.0))
    if (p.seconds > 0) pts.push_back(p);
  const kbt::SpaceCostModel m = kbt::fit_cost_model("serial", pts);
  EXPECT_EQ(m.fixed_seconds, 0.0);
  EXPECT_GE(m.per_bar_combo_base, 0.0);
  EXPECT_GE(m.per_instruction, 0.0);
  EXPECT_GE(m.per_window_read, 0.0);
  EXPECT_GT(m.per_bar_combo_seconds({10, 10}), 0.0);
  EXPECT_TRUE(std::isfinite(m.max_relative_residual));
}

TEST(CalibrationModel, SingleComplexityStillFits) {
  // One complexity: base, per_instruction and per_window_read are not
  // separable; the fit stays exact at that complexity and non-negative.
  std::vector<kbt::TimingPoint> pts;
  const kbt::Complexity k{7, 20};
  for (double combos : {10.0, 1000.0, 30000.0, 100000.0})
    pts.push_back({"serial", "w", combos, 1000, k, 1e-3 + 7e-8 * 1000 * combos});
  const kbt::SpaceCostModel m = kbt::fit_cost_model("serial", pts);
  EXPECT_NEAR(m.fixed_seconds / 1e-3, 1.0, 1e-6);
  EXPECT_NEAR(m.per_bar_combo_seconds(k) / 7e-8, 1.0, 1e-6);
  EXPECT_GE(m.per_bar_combo_base, 0.0);
  EXPECT_GE(m.per_instruction, 0.0);
  EXPECT_GE(m.per_window_read, 0.0);
}

TEST(CalibrationModel, TooFewPointsIsAnError) {
  std::vector<kbt::TimingPoint> pts{{"serial", "w", 10, 100, {5, 0}, 0.01},
                                    {"serial", "w", 100, 100, {5, 0}, 0.02},
                                    {"serial", "w", 1000, 100, {5, 0}, 0.1}};
  EXPECT_THROW(kbt::fit_cost_model("serial", pts), kbt::Error);
  EXPECT_THROW(kbt::fit_cost_model("openmp", synthetic_points("serial", {1e-3, 1e-8, 1e-9, 1e-9}, 0)), kbt::Error);
}

kbt::SpaceCostModel model(const std::string& space, double fixed, double base, double per_instruction,
                          double per_read = 0) {
  kbt::SpaceCostModel m;
  m.space = space;
  m.fixed_seconds = fixed;
  m.per_bar_combo_base = base;
  m.per_instruction = per_instruction;
  m.per_window_read = per_read;
  return m;
}

TEST(CalibrationModel, BreakEvenIsWherePredictionsCross) {
  const auto host = model("serial", 2e-3, 1e-8, 2e-9, 1e-9);
  const auto gpu = model("cuda", 0.25, 1e-11, 1e-12, 1e-13);
  const kbt::Complexity simple{5, 0}, heavy{40, 100};
  for (double bars : {1000.0, 20000.0})
    for (const kbt::Complexity& k : {simple, heavy}) {
      const auto n = kbt::break_even_combos(host, gpu, bars, k);
      ASSERT_TRUE(n.has_value());
      ASSERT_GT(*n, 1.0);
      EXPECT_LT(host.predict_seconds(*n - 1, bars, k), gpu.predict_seconds(*n - 1, bars, k));
      EXPECT_GE(host.predict_seconds(*n, bars, k), gpu.predict_seconds(*n, bars, k));
    }
  // More bars or more complexity: the device pays off sooner.
  EXPECT_LT(*kbt::break_even_combos(host, gpu, 20000, simple), *kbt::break_even_combos(host, gpu, 1000, simple));
  EXPECT_LT(*kbt::break_even_combos(host, gpu, 1000, heavy), *kbt::break_even_combos(host, gpu, 1000, simple));
  // Never faster (higher fixed and per-combo cost); always faster.
  EXPECT_FALSE(kbt::break_even_combos(host, model("cuda", 1.0, 1e-7, 0), 1000, simple).has_value());
  EXPECT_EQ(*kbt::break_even_combos(host, model("cuda", 0, 1e-12, 0), 1000, simple), 0.0);
}

TEST(CalibrationModel, BreakEvenTablePairsHostWithOtherSpaces) {
  const auto table = kbt::break_even_table(
      {model("serial", 1e-3, 1e-8, 1e-9), model("openmp", 5e-3, 5e-9, 5e-10), model("cuda", 0.2, 1e-11, 1e-12)},
      {1000, 10000}, {{"a", {5, 0}}, {"b", {20, 50}}});
  // serial-openmp, serial-cuda, openmp-cuda, each at 2 x 2 (bars, complexity).
  EXPECT_EQ(table.size(), 12u);
  // serial is the host of both its pairs, openmp the host against cuda.
  for (const auto& b : table) {
    EXPECT_TRUE(kbt::is_host_space(b.host));
    EXPECT_NE(b.host, b.other);
    EXPECT_NE(b.other, "serial");
    EXPECT_NE(b.host, "cuda");
    EXPECT_TRUE(b.workload == "a" || b.workload == "b");
  }
  EXPECT_TRUE(kbt::break_even_table({model("serial", 1e-3, 1e-8, 1e-9)}, {1000}, {{"a", {5, 0}}}).empty());
}

TEST(CalibrationComplexity, CountsPerBarWorkOfTheCompiledProgram) {
  const auto sma = kbt::make_calibration_workload("sma_cross", 300);
  const auto z = kbt::make_calibration_workload("zscore_expr", 300);
  const auto kf = kbt::make_calibration_workload("kalman_stops", 300);
  const auto cs = kbt::strategy_complexity(sma.program, 1, sma.sim);
  // sma(close, fast), sma(close, slow) hoisted; f > s and where(...) streamed.
  EXPECT_EQ(cs.hoisted, 2u);
  EXPECT_EQ(cs.streamed, 2u);
  EXPECT_EQ(cs.scan_tape, 0u);
  EXPECT_EQ(cs.stops, 0u);
  EXPECT_EQ(cs.work.instructions, 5.0);
  EXPECT_EQ(cs.work.window_reads, 0.0);
  EXPECT_EQ(sma.complexity.instructions, 5.0);
  // zscore(dev, b) is streamed: 2 reads per window element, b's axis 10..60 has mean 35.
  const auto cz = kbt::strategy_complexity(z.program, 1, z.sim);
  EXPECT_EQ(cz.work.window_reads, 70.0);
  EXPECT_EQ(cz.hoisted, 1u);  // sma(close, a)
  // Kalman: a streamed scan (its update tape), rolling_std(dev, 50) = 100 reads per symbol, 3 stops.
  const auto ckf = kbt::strategy_complexity(kf.program, 2, kf.sim);
  EXPECT_EQ(ckf.stops, 3u);
  EXPECT_GT(ckf.scan_tape, 0u);
  EXPECT_EQ(ckf.work.instructions, 2.0 * static_cast<double>(1 + ckf.streamed + ckf.hoisted + ckf.scan_tape + ckf.stops));
  EXPECT_EQ(ckf.work.window_reads, 2.0 * 100);
  // Symbols multiply the per-bar work; the workloads rise in complexity.
  EXPECT_EQ(kbt::strategy_complexity(sma.program, 3, sma.sim).work.instructions, 3 * cs.work.instructions);
  EXPECT_LT(sma.complexity.instructions, z.complexity.instructions);
  EXPECT_LT(z.complexity.instructions, kf.complexity.instructions);
  EXPECT_LT(z.complexity.window_reads, kf.complexity.window_reads);
}

TEST(CalibrationWorkloads, CombosRepeatTheGrid) {
  const auto w = kbt::make_calibration_workload("sma_cross", 200);
  ASSERT_GT(w.grid_combos, 10u);
  const auto c = w.combos(w.grid_combos + 3);
  const std::size_t np = w.program.n_params();
  ASSERT_EQ(c.size(), (w.grid_combos + 3) * np);
  for (std::size_t k = 0; k < np; ++k) EXPECT_EQ(c[w.grid_combos * np + k], w.grid[k]);
  EXPECT_THROW(kbt::make_calibration_workload("nope", 200), kbt::Error);
  EXPECT_THROW(kbt::calibration_ladder("huge"), kbt::Error);
}

}  // namespace
