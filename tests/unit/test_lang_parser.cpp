// Parser: structure of the tree and the exact position of every syntax error.
#include <kbt/lang/parser.hpp>

#include "test_lang_support.hpp"

using namespace kbt;
using kbt::test::contains;

namespace {

std::string parse_error(const SourceText& src, ErrorCategory expected = ErrorCategory::language) {
  try {
    parse_expression(src);
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), expected) << e.what();
    return e.what();
  }
  return "";
}

std::string parse_error(const std::string& text) { return parse_error(SourceText{text, "<expr>", 1, 1}); }

// Prints a tree in prefix form for structural comparison.
std::string show(const AstNode& n) {
  switch (n.kind) {
    case AstNode::Kind::number: return n.text;
    case AstNode::Kind::string: return "\"" + n.text + "\"";
    case AstNode::Kind::name:
      return n.text + (n.field.empty() ? "" : "." + n.field) + (n.symbol.empty() ? "" : "@" + n.symbol);
    default: {
      std::string s = "(" + n.text;
      for (const auto& a : n.args) s += " " + show(a);
      return s + ")";
    }
  }
}

std::string tree(const std::string& text) { return show(parse_expression(SourceText{text, "<expr>", 1, 1})); }

}  // namespace

TEST(LangParser, PrecedenceAndAssociativity) {
  EXPECT_EQ(tree("1 + 2 * 3"), "(+ 1 (* 2 3))");
  EXPECT_EQ(tree("1 - 2 - 3"), "(- (- 1 2) 3)");
  EXPECT_EQ(tree("8 / 4 / 2"), "(/ (/ 8 4) 2)");
  EXPECT_EQ(tree("-a * b"), "(* (- a) b)");
  EXPECT_EQ(tree("a + b > c * 2"), "(> (+ a b) (* c 2))");
  EXPECT_EQ(tree("not a > b and c < d or e == f"), "(or (and (not (> a b)) (< c d)) (== e f))");
  EXPECT_EQ(tree("(a or b) and c"), "(and (or a b) c)");
  EXPECT_EQ(tree("a != b"), "(!= a b)");
  EXPECT_EQ(tree("a <= b"), "(<= a b)");
  EXPECT_EQ(tree("a >= b"), "(>= a b)");
}

TEST(LangParser, NamesCallsSymbolsAndScanOutputs) {
  EXPECT_EQ(tree("sma(close, fast)"), "(sma close fast)");
  EXPECT_EQ(tree("f()"), "(f)");
  EXPECT_EQ(tree("close@BBB - close"), "(- close@BBB close)");
  EXPECT_EQ(tree("kf.level"), "kf.level");
  EXPECT_EQ(tree("kf.level@BBB"), "kf.level@BBB");
  EXPECT_EQ(tree("close@\"BTC-USD\""), "close@BTC-USD");
  EXPECT_EQ(tree("close@1INCH"), "close@1INCH");
  EXPECT_EQ(tree("htf(close, \"4h\")"), "(htf close \"4h\")");
  EXPECT_EQ(tree("1.5e-3 + .5"), "(+ 1.5e-3 .5)");
  const AstNode n = parse_expression(SourceText{"1.5e-3", "", 0, 0});
  EXPECT_EQ(n.number, 0.0015);
}

TEST(LangParser, OffsetsPointAtTokens) {
  const AstNode n = parse_expression(SourceText{"close - sma(close, 3)", "", 1, 1});
  EXPECT_EQ(n.offset, 6);          // the '-'
  EXPECT_EQ(n.args[1].offset, 8);  // 'sma'
  EXPECT_EQ(n.args[1].args[1].offset, 19);
}

TEST(LangParser, ErrorsNameLineAndColumn) {
  EXPECT_TRUE(contains(parse_error("close $ 1"), "<expr>:1:7: unexpected character '$'; expected an expression"))
      << parse_error("close $ 1");
  EXPECT_TRUE(contains(parse_error("sma(close, 3"), "<expr>:1:13: unexpected end of expression; expected ',' or ')'"))
      << parse_error("sma(close, 3");
  EXPECT_TRUE(contains(parse_error("(close + 1"), "<expr>:1:11: unexpected end of expression; expected ')' to close the '(' at <expr>:1:1"))
      << parse_error("(close + 1");
  EXPECT_TRUE(contains(parse_error("close)"), "<expr>:1:6: unmatched ')'")) << parse_error("close)");
  EXPECT_TRUE(contains(parse_error("close +"), "<expr>:1:8: unexpected end of expression; expected an operand"))
      << parse_error("close +");
  EXPECT_TRUE(contains(parse_error(""), "<expr>:1:1: empty expression"));
  EXPECT_TRUE(contains(parse_error("a < b < c"), "<expr>:1:7: comparisons cannot be chained"))
      << parse_error("a < b < c");
  EXPECT_TRUE(contains(parse_error("a = b"), "<expr>:1:3: unexpected '='; expected '=='"));
  EXPECT_TRUE(contains(parse_error("a && b"), "<expr>:1:3: unexpected '&'; expected 'and'"));
  EXPECT_TRUE(contains(parse_error("!a"), "<expr>:1:1: unexpected '!'"));
  EXPECT_TRUE(contains(parse_error("htf(close, \"4h)"), "<expr>:1:12: unterminated string"));
  EXPECT_TRUE(contains(parse_error("close@ + 1"), "<expr>:1:7: missing symbol after '@'"));
  EXPECT_TRUE(contains(parse_error("kf. + 1"), "<expr>:1:5: unexpected '+'; expected an output name"));
  EXPECT_TRUE(contains(parse_error("sma(close,)"), "<expr>:1:11: missing argument"));
  EXPECT_TRUE(contains(parse_error("close close"), "<expr>:1:7: unexpected name 'close'; expected an operator"));
  EXPECT_TRUE(contains(parse_error("1e+"), "<expr>:1:4: malformed number exponent"));
  EXPECT_TRUE(contains(parse_error("2x"), "<expr>:1:2: unexpected character 'x' after a number"));
  EXPECT_TRUE(contains(parse_error("and b"), "<expr>:1:1: unexpected 'and'"));
  EXPECT_TRUE(contains(parse_error("a ** 2"), "<expr>:1:3: '**' is not an operator"));
}

TEST(LangParser, ColumnsAreRelativeToTheSourcePosition) {
  // An expression that starts at column 9 of line 12 of a config file.
  const std::string msg = parse_error(SourceText{"close $", "configs/x.yaml", 12, 9});
  EXPECT_TRUE(contains(msg, "configs/x.yaml:12:15: unexpected character '$'")) << msg;
  // A second line inside the text restarts the column count.
  const std::string msg2 = parse_error(SourceText{"close +\n  $", "configs/x.yaml", 12, 9});
  EXPECT_TRUE(contains(msg2, "configs/x.yaml:13:3: unexpected character '$'")) << msg2;
  // The message shows the line and a caret under the column.
  EXPECT_TRUE(contains(msg, "\n    close $\n          ^")) << msg;
}

TEST(LangParser, NestingAndSizeLimitsAreClearErrors) {
  const std::string deep = std::string(300, '(') + "1" + std::string(300, ')');
  EXPECT_TRUE(contains(parse_error(SourceText{deep, "<expr>", 1, 1}, ErrorCategory::limit),
                       "nested deeper than 256 levels"));
  std::string negs(300, '-');
  EXPECT_TRUE(contains(parse_error(SourceText{negs + "1", "<expr>", 1, 1}, ErrorCategory::limit),
                       "nested deeper than 256"));
  std::string calls;
  for (int i = 0; i < 300; ++i) calls += "abs(";
  calls += "1" + std::string(300, ')');
  EXPECT_TRUE(contains(parse_error(SourceText{calls, "<expr>", 1, 1}, ErrorCategory::limit),
                       "nested deeper than 256"));
  std::string chain = "1";
  for (int i = 0; i < 300; ++i) chain += "+1";
  EXPECT_TRUE(contains(parse_error(SourceText{chain, "<expr>", 1, 1}, ErrorCategory::limit),
                       "nested deeper than 256"));
  // 200 levels are fine.
  const std::string ok = std::string(200, '(') + "1" + std::string(200, ')');
  EXPECT_NO_THROW(parse_expression(SourceText{ok, "<expr>", 1, 1}));
  const std::string huge(max_expression_chars + 1, '1');
  EXPECT_TRUE(contains(parse_error(SourceText{huge, "<expr>", 1, 1}, ErrorCategory::limit), "the limit is 65536"));
}

TEST(LangParser, KeywordsAndIdentifiers) {
  EXPECT_TRUE(is_keyword("and"));
  EXPECT_FALSE(is_identifier("or"));
  EXPECT_TRUE(is_identifier("p_pred"));
  EXPECT_TRUE(is_identifier("_x1"));
  EXPECT_FALSE(is_identifier("1x"));
  EXPECT_FALSE(is_identifier("a-b"));
  EXPECT_FALSE(is_identifier(""));
}
