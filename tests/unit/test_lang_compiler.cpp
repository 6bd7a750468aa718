// Compiler: name resolution, suggestions, type checks, windows, CSE, hoisting,
// dead-code removal and strategy outputs.
#include <kbt/config/config_loader.hpp>
#include <kbt/lang/parser.hpp>

#include "test_lang_support.hpp"

using namespace kbt;
using namespace kbt::test;

namespace {

BarData ohlcv() {
  return make_bars({"AAA", "BBB"}, {{"open", {{1, 2, 3}, {1, 2, 3}}},
                                    {"high", {{1, 2, 3}, {1, 2, 3}}},
                                    {"low", {{1, 2, 3}, {1, 2, 3}}},
                                    {"close", {{1, 2, 3}, {4, 5, 6}}},
                                    {"volume", {{1, 1, 1}, {1, 1, 1}}}});
}

SourceText at(const std::string& text, int line, int col = 5) { return SourceText{text, "cfg.yaml", line, col}; }

StrategySpec crossover_spec() {
  StrategySpec s;
  s.params = {param("fast", {2, 3, 4}), param("slow", {5, 10})};
  s.constraints = {at("fast < slow", 8)};
  s.signals = {{"f", at("sma(close, fast)", 10)}, {"s", at("sma(close, slow)", 11)}};
  s.position = at("where(f > s, 1, -1)", 12);
  return s;
}

std::string strategy_error(const StrategySpec& s, const DataSchema& schema) {
  try {
    compile_strategy(s, schema);
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::language) << e.what();
    return e.what();
  }
  return "";
}

int count_op(const Program& p, OpCode op) {
  int n = 0;
  for (const auto& i : p.code) n += i.op == op ? 1 : 0;
  return n;
}

}  // namespace

TEST(LangCompiler, UnknownNamesSuggestTheClosest) {
  StrategySpec s = crossover_spec();
  s.signals.push_back({"spread", at("f - slwo", 14, 13)});
  const std::string msg = strategy_error(s, schema_of(ohlcv()));
  EXPECT_TRUE(contains(msg, "cfg.yaml:14:17: unknown name 'slwo'; did you mean 'slow'?")) << msg;

  const BarData d = ohlcv();
  EXPECT_TRUE(contains(compile_error(d, "clsoe + 1"), "<expr>:1:1: unknown name 'clsoe'; did you mean 'close'?"));
  EXPECT_TRUE(contains(compile_error(d, "zzz"), "unknown name 'zzz'"));
  EXPECT_FALSE(contains(compile_error(d, "zzz"), "did you mean"));
  EXPECT_TRUE(contains(compile_error(d, "smaa(close, 2)"), "<expr>:1:1: unknown function 'smaa'; did you mean 'sma'?"));
  EXPECT_TRUE(contains(compile_error(d, "close@BBC"), "<expr>:1:7: unknown symbol 'BBC'; did you mean 'BBB'?"))
      << compile_error(d, "close@BBC");
  EXPECT_TRUE(contains(compile_error(d, "funding_rate"), "the data has no column 'funding_rate'"));
  EXPECT_TRUE(contains(compile_error(d, "close(1)"), "'close' is not a function"));
  EXPECT_TRUE(contains(compile_error(d, "sma + 1"), "'sma' is a function"));
}

TEST(LangCompiler, ArityAndTypesAreChecked) {
  const BarData d = ohlcv();
  const std::vector<ParamSpec> ps{param("k", {1.5, 2}), param("fast", {0, 5}), param("n", {2, 3})};
  EXPECT_TRUE(contains(compile_error(d, "close + sma(close)", ps),
                       "<expr>:1:9: sma() takes 2 arguments (sma(x, window)); got 1"));
  EXPECT_TRUE(contains(compile_error(d, "close and open", ps), "<expr>:1:1: 'and' needs a boolean"));
  EXPECT_TRUE(contains(compile_error(d, "not close", ps), "<expr>:1:5: 'not' needs a boolean"));
  EXPECT_TRUE(contains(compile_error(d, "where(close, 1, 2)", ps), "the condition of where() needs a boolean"));
  EXPECT_TRUE(contains(compile_error(d, "sma(close, 2.5)", ps), "<expr>:1:12: window 2.5 is not an integer"));
  EXPECT_TRUE(contains(compile_error(d, "sma(close, 0)", ps), "the window of sma() must be >= 1; got 0"));
  EXPECT_TRUE(contains(compile_error(d, "rolling_std(close, 1)", ps), "must be >= 2"));
  EXPECT_TRUE(contains(compile_error(d, "sma(close, k)", ps), "param 'k' is not integer-valued (it has the value 1.5)"));
  EXPECT_TRUE(contains(compile_error(d, "sma(close, fast)", ps),
                       "<expr>:1:12: param 'fast' has the value 0 on its axis; the window of sma() must be >= 1"));
  EXPECT_TRUE(contains(compile_error(d, "lag(close, fast)", ps), ""));  // lag 0 is allowed
  EXPECT_EQ(compile_error(d, "lag(close, fast)", ps), "");
  EXPECT_TRUE(contains(compile_error(d, "sma(n, 3)", ps), "sma() needs a series as its first argument"));
  EXPECT_TRUE(contains(compile_error(d, "lead(close, 1)", ps),
                       "<expr>:1:1: lead() looks ahead and is only allowed in labelling jobs"));
  EXPECT_TRUE(contains(compile_error(d, "close + \"4h\"", ps), "a string is only allowed as the timeframe of htf()"));
  EXPECT_TRUE(contains(compile_error(d, "htf(close, \"4x\")", ps), "<expr>:1:12: invalid timeframe \"4x\""));
  EXPECT_TRUE(contains(compile_error(d, "htf(close, 4)", ps), "the timeframe of htf() must be a string"));
  EXPECT_TRUE(contains(compile_error(d, "htf(htf(close, \"4h\"), \"1d\")", ps), "htf() cannot be nested"));
  EXPECT_TRUE(contains(compile_error(d, "cross_above(n, 2)", ps), "needs at least one series"));
  EXPECT_TRUE(contains(compile_error(d, "n@AAA", ps), "param 'n' is one value per combo"));
  EXPECT_TRUE(contains(compile_error(d, "kf.level", ps), "unknown scan 'kf'"));
  EXPECT_TRUE(contains(compile_error(d, "close.level", ps), "'close' is not a scan"));
  const BarData close_data = close_only({1, 2});
  EXPECT_TRUE(contains(compile_error(close_data, "atr(3)"), "atr() needs the columns high, low and close"));
}

// A window written as an expression of params and numbers: every value it
// takes over the grid is checked when compiling; each combo's window is the
// expression's value (docs/language.md §5).
TEST(LangCompiler, WindowExpressionsOfParams) {
  const BarData d = close_only({1, 2, 4, 7, 11, 16, 22, 29});
  const std::vector<ParamSpec> ps{param("k", {1.5, 2}), param("fast", {0, 5}), param("n", {2, 3})};
  struct Bad {
    const char* expr;
    const char* message;
  };
  for (const Bad& b : {Bad{"sma(close, n / 2)", "<expr>:1:14: the window of sma() takes the value 1.5 over the param grid; a window must be an integer on every combo"},
                       Bad{"sma(close, fast - 5)", "the window of sma() takes the value -5 over the param grid; it must be >= 1"},
                       Bad{"rolling_std(close, n - 1)", "takes the value 1 over the param grid; it must be >= 2"},
                       Bad{"sma(close, n / (n - 2))", "takes the value nan over the param grid"},
                       Bad{"sma(close, close)", "the window of sma() must be the same on every bar"},
                       Bad{"sma(close, n > 2)", "the window of sma() is a boolean"},
                       Bad{"sma(close, sqrt(n * n))", "the window of sma() uses sqrt; a window expression may use numbers, params, + - * / and min, max, abs"},
                       Bad{"sma(close, m + 1)", "unknown name 'm'"}}) {
    EXPECT_TRUE(contains(compile_error(d, b.expr, ps), b.message)) << b.expr << "\n" << compile_error(d, b.expr, ps);
  }
  // Values worked out by hand against constant windows: n = 3 gives 2n = 6,
  // n + 1 = 4, max(n, 5) = 5, and 2k = 3 from a non-integer param.
  const std::vector<double> at = {1.5, 5, 3};  // k, fast, n
  expect_series(eval(d, "sma(close, 2 * n)", ps, at), eval(d, "sma(close, 6)", ps, at));
  expect_series(eval(d, "rolling_std(close, n + 1) + lag(close, n - 2)", ps, at),
                eval(d, "rolling_std(close, 4) + lag(close, 1)", ps, at));
  expect_series(eval(d, "ema(close, max(n, fast)) - rolling_max(close, 2 * k)", ps, at),
                eval(d, "ema(close, 5) - rolling_max(close, 3)", ps, at));
  const auto v = eval(d, "sma(close, 2 * n)", ps, at);
  EXPECT_EQ(v[5], (1.0 + 2 + 4 + 7 + 11 + 16) / 6);  // not vacuous
  // The window register is a scalar of params: the op depends on params.
  const Program p = compile_expression(expr_text("sma(close, 2 * n)"), schema_of(d), ps);
  EXPECT_EQ(p.code[static_cast<std::size_t>(p.expression)].window_kind, WindowKind::scalar);
  EXPECT_EQ(window_values(p, WindowKind::scalar, p.code[static_cast<std::size_t>(p.expression)].window),
            (std::vector<std::int64_t>{4, 6}));
}

// `symbol == "AAA"`: 1 in that symbol's rows, 0 elsewhere (values by hand);
// `!=` its negation; errors name what is wrong.
TEST(LangCompiler, SymbolTestsTellTheLegsApart) {
  const BarData d = make_bars({"AAA", "BBB"}, {{"close", {{1, 2, 3}, {10, 20, 30}}}});
  expect_series(eval(d, "where(symbol == \"BBB\", 1, -1) * close"), {-1, -2, -3, 10, 20, 30});
  expect_series(eval(d, "\"AAA\" == symbol"), {1, 1, 1, 0, 0, 0});
  expect_series(eval(d, "symbol != \"AAA\""), {0, 0, 0, 1, 1, 1});
  // In a 2h timeframe: its first bar (closes 2 and 20) is seen from base bar 2 on (§7).
  expect_series(eval(d, "htf(sma(close, 1) * (symbol == \"AAA\"), \"2h\")"), {NaN, NaN, 2, NaN, NaN, 0});
  EXPECT_TRUE(contains(compile_error(d, "symbol == \"AAB\""), "<expr>:1:11: unknown symbol 'AAB'; did you mean 'AAA'?"));
  EXPECT_TRUE(contains(compile_error(d, "symbol == 3"), "symbol is compared with a symbol name in quotes, e.g. symbol == \"AAA\""));
  EXPECT_TRUE(contains(compile_error(d, "symbol + 1"), "symbol is only compared with a symbol name"));
  // A param named `symbol` is that param.
  EXPECT_TRUE(contains(compile_error(d, "symbol == \"AAA\"", {param("symbol", {1})}),
                       "a string is only allowed as the timeframe of htf()"));
}

TEST(LangCompiler, LeadIsAvailableToLabellingJobs) {
  const BarData d = close_only({1, 2, 3});
  CompileOptions opt;
  opt.allow_lead = true;
  const Program p = compile_expression(expr_text("lead(close, 1)"), schema_of(d), {}, opt);
  expect_series(evaluate_expression_reference(p, d, nullptr), {2, 3, NaN});
}

TEST(LangCompiler, CommonSubexpressionsShareOneRegister) {
  const BarData d = ohlcv();
  const Program p = compile_expression(expr_text("sma(close, 3) + sma(close, 3) * (close - sma(close, 3))"),
                                       schema_of(d), {});
  EXPECT_EQ(count_op(p, OpCode::rolling_mean), 1);
  EXPECT_EQ(count_op(p, OpCode::column), 1);
  // Different windows are different registers.
  const Program q = compile_expression(expr_text("sma(close, 3) - sma(close, 4)"), schema_of(d), {});
  EXPECT_EQ(count_op(q, OpCode::rolling_mean), 2);
  // Across signals: f and the inline sma(close, fast) are one register.
  StrategySpec s = crossover_spec();
  s.position = at("where(f > sma(close, slow), 1, -1)", 12);
  const Program r = compile_strategy(s, schema_of(d));
  EXPECT_EQ(count_op(r, OpCode::rolling_mean), 2);
}

TEST(LangCompiler, HoistingListsParamFreeWindowedSeries) {
  const BarData d = ohlcv();
  const Program p = compile_strategy(crossover_spec(), schema_of(d));
  ASSERT_EQ(p.hoisted.size(), 2u);
  const HoistedSeries& fast = p.hoisted[0];
  EXPECT_EQ(fast.op, OpCode::rolling_mean);
  EXPECT_EQ(fast.window_kind, WindowKind::param);
  EXPECT_EQ(p.param_names[static_cast<std::size_t>(fast.window)], "fast");
  EXPECT_EQ(p.code[static_cast<std::size_t>(fast.a)].op, OpCode::column);
  EXPECT_EQ(hoisted_window_values(p, fast), (std::vector<std::int64_t>{2, 3, 4}));
  EXPECT_EQ(hoisted_window_values(p, p.hoisted[1]), (std::vector<std::int64_t>{5, 10}));
  // The sma inside zscore is hoisted; the zscore of a param-dependent input is not.
  const Program z = compile_expression(expr_text("zscore(close - sma(close, fast), 3) + ema(close, 4)"),
                                       schema_of(d), {param("fast", {2, 3})});
  std::vector<OpCode> ops;
  for (const auto& h : z.hoisted) ops.push_back(h.op);
  EXPECT_EQ(ops, (std::vector<OpCode>{OpCode::rolling_mean, OpCode::ema}));
  EXPECT_EQ(z.hoisted[1].window_kind, WindowKind::constant);
  EXPECT_EQ(hoisted_window_values(z, z.hoisted[1]), (std::vector<std::int64_t>{4}));
}

TEST(LangCompiler, ParamDependencyIsMarked) {
  const BarData d = ohlcv();
  const Program p = compile_strategy(crossover_spec(), schema_of(d));
  for (const auto& i : p.code) {
    if (i.op == OpCode::column || i.op == OpCode::constant) EXPECT_FALSE(i.depends_on_params);
    if (i.op == OpCode::rolling_mean || i.op == OpCode::gt || i.op == OpCode::where || i.op == OpCode::param)
      EXPECT_TRUE(i.depends_on_params);
  }
  EXPECT_TRUE(p.code[static_cast<std::size_t>(p.position)].is_series);
  ASSERT_EQ(p.constraints.size(), 1u);
  const Instr& c = p.code[static_cast<std::size_t>(p.constraints[0])];
  EXPECT_FALSE(c.is_series);
  EXPECT_TRUE(c.is_boolean);
}

TEST(LangCompiler, ConstraintsSelectCombos) {
  const Program p = compile_strategy(crossover_spec(), schema_of(ohlcv()));
  const double ok[2] = {3, 5}, equal[2] = {5, 5}, bad[2] = {10, 5};
  EXPECT_TRUE(constraints_hold(p, ok));
  EXPECT_FALSE(constraints_hold(p, equal));
  EXPECT_FALSE(constraints_hold(p, bad));
  StrategySpec s = crossover_spec();
  s.constraints = {at("close < slow", 8)};
  EXPECT_TRUE(contains(strategy_error(s, schema_of(ohlcv())), "cfg.yaml:8:5: a constraint must depend on params only"));
  s.constraints = {at("fast + slow", 8)};
  EXPECT_TRUE(contains(strategy_error(s, schema_of(ohlcv())), "a constraint must be a boolean expression"));
}

TEST(LangCompiler, SignalsMayComeInAnyOrderButNotInACycle) {
  const BarData d = close_only({1, 2, 3});
  StrategySpec s;
  s.signals = {{"b", at("a * 2", 5)}, {"a", at("close + 1", 6)}};
  s.position = at("b", 7);
  const Program p = compile_strategy(s, schema_of(d));
  const auto out = evaluate_strategy_reference(p, d, nullptr);
  expect_series(out.target, {4, 6, 8});

  s.signals = {{"a", at("b + 1", 5)}, {"b", at("c * 2", 6)}, {"c", at("a", 7)}};
  s.position = at("a", 8);
  const std::string msg = strategy_error(s, schema_of(d));
  EXPECT_TRUE(contains(msg, "signal 'a' depends on itself: signal 'a' -> signal 'b' -> signal 'c' -> signal 'a'"))
      << msg;
  EXPECT_TRUE(contains(msg, "cfg.yaml:7:5")) << msg;
}

TEST(LangCompiler, UnusedSignalsAreCheckedButDropped) {
  const BarData d = close_only({1, 2, 3});
  StrategySpec s;
  s.signals = {{"unused", at("rolling_max(close, 2)", 5)}, {"used", at("close * 3", 6)}};
  s.position = at("used", 7);
  const Program p = compile_strategy(s, schema_of(d));
  EXPECT_EQ(count_op(p, OpCode::rolling_max), 0);
  EXPECT_TRUE(p.hoisted.empty());
  s.signals.push_back({"unused_htf", at("htf(close, \"4h\")", 8)});
  EXPECT_EQ(compile_strategy(s, schema_of(d)).frame_ns.size(), 1u);
  s.signals[0].second = at("rolling_max(close, 2) + nope", 5);
  EXPECT_TRUE(contains(strategy_error(s, schema_of(d)), "unknown name 'nope'"));
}

TEST(LangCompiler, NameCollisionsAndOutputFormsAreErrors) {
  const BarData d = close_only({1, 2, 3});
  StrategySpec s;
  s.signals = {{"close", at("close * 2", 5)}};
  s.position = at("close", 6);
  EXPECT_TRUE(contains(strategy_error(s, schema_of(d)), "signal 'close' has the name of a data column"));
  StrategySpec both;
  both.position = at("1", 3);
  both.long_entry = at("close > 1", 4);
  EXPECT_TRUE(contains(strategy_error(both, schema_of(d)), "both `position` and entry/exit"));
  StrategySpec none;
  EXPECT_TRUE(contains(strategy_error(none, schema_of(d)), "neither `position` nor"));
  StrategySpec numeric_entry;
  numeric_entry.long_entry = at("close + 1", 4);
  EXPECT_TRUE(contains(strategy_error(numeric_entry, schema_of(d)), "cfg.yaml:4:5: long_entry must be a boolean"))
      << strategy_error(numeric_entry, schema_of(d));
}

TEST(LangCompiler, EntriesAndExitsAreEvaluated) {
  const BarData d = close_only({1, 3, 2, 4});
  StrategySpec s;
  s.long_entry = at("cross_above(close, 2.5)", 4);
  s.long_exit = at("close < 2.5", 5);
  const Program p = compile_strategy(s, schema_of(d));
  const StrategyOutputs out = evaluate_strategy_reference(p, d, nullptr);
  EXPECT_EQ(out.form, StrategyOutputs::Form::entries_exits);
  expect_series(out.long_entry, {0, 1, 0, 1});
  expect_series(out.long_exit, {1, 0, 1, 0});
  EXPECT_TRUE(out.short_entry.empty());
  EXPECT_TRUE(out.short_exit.empty());
}

TEST(LangCompiler, PositionOfTheCrossoverStrategy) {
  const BarData d = close_only({1, 2, 3, 2, 1, 0});
  StrategySpec s = crossover_spec();
  s.params = {param("fast", {1}), param("slow", {3})};
  const Program p = compile_strategy(s, schema_of(d));
  const double v[2] = {1, 3};
  // sma3 = [N, N, 2, 7/3, 2, 1]; f = close. f > s: [N, N, 1, 0, 0, 0].
  const StrategyOutputs out = evaluate_strategy_reference(p, d, v);
  EXPECT_EQ(out.form, StrategyOutputs::Form::position);
  EXPECT_EQ(out.n_symbols, 1u);
  EXPECT_EQ(out.n_bars, 6u);
  expect_series(out.target, {NaN, NaN, 1, -1, -1, -1});
}

TEST(LangCompiler, DisassemblyNamesEverything) {
  const Program p = compile_strategy(crossover_spec(), schema_of(ohlcv()));
  const std::string text = disassemble(p);
  EXPECT_TRUE(contains(text, "rolling_mean r0 window=fast")) << text;
  EXPECT_TRUE(contains(text, "position: r")) << text;
  EXPECT_TRUE(contains(text, "hoisted: r")) << text;
}

TEST(LangCompiler, PositionsFromTheConfigLoaderPointIntoTheYaml) {
  const char* yaml = R"(data: data/sample.h5
strategy:
  params:
    fast: {range: [5, 20, 5]}
    slow: {values: [30]}
  signals:
    f: sma(close, fast)
    s: sma(close, slwo)
  position: where(f > s, 1, -1)
)";
  const RunConfig cfg = parse_run_config(yaml, "configs/x.yaml", "");
  const std::string msg = strategy_error(cfg.strategy, schema_of(ohlcv()));
  EXPECT_TRUE(contains(msg, "configs/x.yaml:8:19: unknown name 'slwo'; did you mean 'slow'?")) << msg;
}

TEST(LangCompiler, WindowSumsRunLeftToRightOverEachWindow) {
  // Pins the numeric rule kernels must follow. 1 + 1e16 rounds to 1e16, so the
  // window [1, 1e16, -1e16] sums to 0 left to right (it would be 1 right to left).
  const BarData d = close_only({1, 1e16, -1e16, 1, 1});
  // [-1e16, 1, 1]: -1e16 + 1 rounds back to -1e16, and so does adding the second 1.
  expect_series(eval(d, "rolling_sum(close, 3)"), {NaN, NaN, 0, 1, -1e16});
  // Re-summed per window: the last window [1, 1] is exactly 2, which a running sum
  // (add the new value, subtract the old) would have lost.
  expect_series(eval(d, "rolling_sum(close, 2)"), {NaN, 1e16, 0, -1e16, 2});
}
