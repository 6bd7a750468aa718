// Scans: a hand-worked 1-D Kalman filter, the NaN rule, tape structure and errors.
#include "test_lang_support.hpp"

using namespace kbt;
using namespace kbt::test;

namespace {

SourceText at(const std::string& text, int line) { return SourceText{text, "cfg.yaml", line, 7}; }

ScanSpec kalman() {
  ScanSpec kf;
  kf.name = "kf";
  kf.origin = at("", 4);
  kf.inputs = {{"z", at("close", 5)}};
  kf.init = {{"x", at("z", 6)}, {"p", at("1.0", 6)}};
  kf.update = {{"p_pred", at("p + q", 8)},
               {"k", at("p_pred / (p_pred + r)", 9)},
               {"x", at("x + k * (z - x)", 10)},
               {"p", at("(1 - k) * p_pred", 11)}};
  kf.outputs = {{"level", at("x", 12)}, {"gain", at("k", 12)}};
  return kf;
}

StrategySpec kalman_strategy() {
  StrategySpec s;
  s.params = {param("q", {1, 2}), param("r", {1})};
  s.scans = {kalman()};
  s.signals = {{"dev", at("close - kf.level", 14)}};
  s.position = at("where(dev > 0, 1, -1)", 15);
  return s;
}

std::string strategy_error(const StrategySpec& s, const BarData& d) {
  try {
    compile_strategy(s, schema_of(d));
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::language) << e.what();
    return e.what();
  }
  return "";
}

std::vector<double> output_of(const Program& p, const BarData& d, const double* params, int out) {
  const auto regs = evaluate_registers_reference(p, d, params);
  for (std::size_t r = 0; r < p.code.size(); ++r)
    if (p.code[r].op == OpCode::scan_output && p.code[r].aux2 == out) return regs[r];
  ADD_FAILURE() << "no scan output " << out;
  return {};
}

}  // namespace

TEST(LangScans, KalmanFilterByHand) {
  // q = r = 1, z = [1, 3, NaN, 5].
  // bar 0: init x=1, p=1; update p_pred=2, k=2/3, x=1, p=2/3.
  // bar 1: p_pred=5/3, k=(5/3)/(8/3)=5/8, x=1+5/8*2=2.25, p=3/8*5/3=5/8.
  // bar 2: z is NaN -> outputs NaN, state kept.
  // bar 3: p_pred=13/8, k=13/21, x=2.25+13/21*2.75.
  const BarData d = close_only({1, 3, NaN, 5});
  StrategySpec s = kalman_strategy();
  s.signals.push_back({"gain", at("kf.gain", 16)});
  s.position = at("where(dev > 0, 1, -1) * gain", 15);
  const Program p = compile_strategy(s, schema_of(d));
  const double params[2] = {1, 1};
  expect_series(output_of(p, d, params, 0), {1, 2.25, NaN, 2.25 + 13.0 / 21 * 2.75}, 1e-15);
  expect_series(output_of(p, d, params, 1), {2.0 / 3, 0.625, NaN, 13.0 / 21}, 1e-15);
  // dev = close - level = [0, 0.75, NaN, 5 - 3.952...]; position = where(dev>0,1,-1)*gain.
  const StrategyOutputs out = evaluate_strategy_reference(p, d, params);
  expect_series(out.target, {-2.0 / 3, 0.625, NaN, 13.0 / 21}, 1e-15);
}

TEST(LangScans, InitWaitsForTheFirstBarWithAllInputs) {
  // q = 2, r = 1, z = [NaN, 4, 4]: init at bar 1 with x = 4, p = 1; p_pred = 3,
  // k = 3/4, x = 4. bar 2: p = 1/4*3 = 0.75, p_pred = 2.75, k = 2.75/3.75.
  const BarData d = close_only({NaN, 4, 4});
  StrategySpec s = kalman_strategy();
  s.position = at("kf.level * kf.gain", 15);
  const Program p = compile_strategy(s, schema_of(d));
  const double params[2] = {2, 1};
  expect_series(output_of(p, d, params, 0), {NaN, 4, 4});
  expect_series(output_of(p, d, params, 1), {NaN, 0.75, 2.75 / 3.75}, 1e-15);
}

TEST(LangScans, EachSymbolRunsItsOwnRecurrence) {
  // An EMA written as a scan, alpha = 0.5, on two symbols; equals ema(close, 3).
  ScanSpec e;
  e.name = "e";
  e.inputs = {{"z", at("close", 5)}};
  e.init = {{"m", at("z", 6)}};
  e.update = {{"m", at("m + 0.5 * (z - m)", 7)}};
  e.outputs = {{"value", at("m", 8)}};
  StrategySpec s;
  s.scans = {e};
  s.position = at("e.value", 9);
  const BarData d = make_bars({"AAA", "BBB"}, {{"close", {{1, 2, 4}, {8, 4, 2}}}});
  const Program p = compile_strategy(s, schema_of(d));
  // AAA: 1, 1.5, 2.75. BBB: 8, 6, 4.
  expect_series(evaluate_strategy_reference(p, d, nullptr).target, {1, 1.5, 2.75, 8, 6, 4});
}

TEST(LangScans, ScanInputsMayReadOtherSymbolsAndSignals) {
  // Ratio of AAA to BBB fed through a pass-through scan.
  ScanSpec r;
  r.name = "ratio";
  r.inputs = {{"a", at("close@AAA", 5)}, {"b", at("spread_base", 5)}};
  r.init = {{"v", at("a / b", 6)}};
  r.update = {{"v", at("a / b", 7)}};
  r.outputs = {{"value", at("v", 8)}};
  StrategySpec s;
  s.scans = {r};
  s.signals = {{"spread_base", at("close@BBB", 4)}};
  s.position = at("ratio.value", 9);
  const BarData d = make_bars({"AAA", "BBB"}, {{"close", {{1, 2}, {4, 8}}}});
  const Program p = compile_strategy(s, schema_of(d));
  expect_series(evaluate_strategy_reference(p, d, nullptr).target, {0.25, 0.25, 0.25, 0.25});
}

TEST(LangScans, TapeIsFlatSsaOverScalarOpcodes) {
  const BarData d = close_only({1, 2});
  const Program p = compile_strategy(kalman_strategy(), schema_of(d));
  ASSERT_EQ(p.scans.size(), 1u);
  const ScanProgram& sp = p.scans[0];
  EXPECT_EQ(sp.n_inputs, 1);
  EXPECT_EQ(sp.n_states, 2);
  EXPECT_EQ(sp.n_outputs, 2);
  EXPECT_TRUE(sp.depends_on_params);
  for (int k = sp.update_begin; k < sp.update_end; ++k) {
    const Instr& t = p.scan_tape[static_cast<std::size_t>(k)];
    for (std::int32_t r : {t.a, t.b, t.c}) EXPECT_LT(r, k - sp.update_begin);  // reads earlier slots
    EXPECT_FALSE(t.is_series);
  }
  EXPECT_EQ(p.scan_state_names[0], (std::vector<std::string>{"x", "p"}));
  EXPECT_EQ(p.scan_output_names[0], (std::vector<std::string>{"level", "gain"}));
  // `1 - k` and `k * (z - x)` share the load of k: one param load per param.
  int q_loads = 0;
  for (int k = sp.update_begin; k < sp.update_end; ++k)
    q_loads += p.scan_tape[static_cast<std::size_t>(k)].op == OpCode::param ? 1 : 0;
  EXPECT_EQ(q_loads, 2);  // q and r
}

TEST(LangScans, ErrorsNameTheScanAndPosition) {
  const BarData d = close_only({1, 2});
  StrategySpec s = kalman_strategy();
  s.scans[0].update[1].second = at("p_prd / (p_pred + r)", 9);
  std::string msg = strategy_error(s, d);
  EXPECT_TRUE(contains(msg, "cfg.yaml:9:7: unknown name 'p_prd' in scan 'kf'; did you mean 'p_pred'?")) << msg;

  s = kalman_strategy();
  s.scans[0].update[0].second = at("p + k", 8);  // k is assigned only later
  msg = strategy_error(s, d);
  EXPECT_TRUE(contains(msg, "cfg.yaml:8:11: 'k' is used before it is assigned in the update of scan 'kf'")) << msg;

  s = kalman_strategy();
  s.scans[0].update[2].second = at("x + k * (close - x)", 10);
  msg = strategy_error(s, d);
  EXPECT_TRUE(contains(msg, "'close' is not visible inside scan 'kf'")) << msg;

  s = kalman_strategy();
  s.scans[0].update[2].second = at("sma(x, 3)", 10);
  msg = strategy_error(s, d);
  EXPECT_TRUE(contains(msg, "sma() is a series op and is not allowed inside scan 'kf'")) << msg;

  s = kalman_strategy();
  s.signals[0].second = at("close - kf.lvl", 14);
  msg = strategy_error(s, d);
  EXPECT_TRUE(contains(msg, "cfg.yaml:14:18: scan 'kf' has no output 'lvl'; did you mean 'level'? (outputs: level, gain)"))
      << msg;

  s = kalman_strategy();
  s.signals[0].second = at("close - kf", 14);
  EXPECT_TRUE(contains(strategy_error(s, d), "'kf' is a scan; expected one of its outputs, e.g. kf.level"));

  s = kalman_strategy();
  s.position = at("htf(kf.level, \"4h\")", 15);
  EXPECT_TRUE(contains(strategy_error(s, d), "scan outputs cannot be used inside htf()"));

  // A scan whose input uses its own output is a cycle.
  s = kalman_strategy();
  s.scans[0].inputs[0].second = at("dev", 5);
  msg = strategy_error(s, d);
  EXPECT_TRUE(contains(msg, "depends on itself")) << msg;

  s = kalman_strategy();
  s.signals[0].second = at("close", 14);
  s.scans[0].outputs.clear();
  EXPECT_TRUE(contains(strategy_error(s, d), "scan 'kf': has no outputs"));
}
