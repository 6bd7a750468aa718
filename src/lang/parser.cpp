// Lexer and recursive-descent parser for strategy expressions.
// Precedence, loosest first: or, and, not, comparison (not chainable), + -, * /,
// unary -, primary. See docs/language.md for the grammar.

#include <kbt/lang/diagnostics.hpp>
#include <kbt/lang/parser.hpp>

#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

namespace kbt {

bool is_keyword(const std::string& word) {
  return word == "and" || word == "or" || word == "not";
}

bool is_identifier(const std::string& word) {
  if (word.empty()) return false;
  const auto first = static_cast<unsigned char>(word[0]);
  if (!(std::isalpha(first) || first == '_')) return false;
  for (char ch : word) {
    const auto c = static_cast<unsigned char>(ch);
    if (!(std::isalnum(c) || c == '_')) return false;
  }
  return !is_keyword(word);
}

namespace {

enum class Tok { number, ident, keyword, string, symbol, lparen, rparen, comma, dot, at, op, end };

struct Token {
  Tok kind;
  std::string text;
  double number = 0.0;
  int offset = 0;
};

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::number: return "number '" + t.text + "'";
    case Tok::ident: return "name '" + t.text + "'";
    case Tok::keyword: return "'" + t.text + "'";
    case Tok::string: return "string \"" + t.text + "\"";
    case Tok::symbol: return "symbol '" + t.text + "'";
    case Tok::end: return "end of expression";
    default: return "'" + t.text + "'";
  }
}

class Lexer {
 public:
  explicit Lexer(const SourceText& src) : src_(src), s_(src.text) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    while (true) {
      skip_space();
      const int start = static_cast<int>(pos_);
      if (pos_ >= s_.size()) {
        out.push_back({Tok::end, "", 0.0, start});
        return out;
      }
      const char c = s_[pos_];
      const auto uc = static_cast<unsigned char>(c);
      if (std::isdigit(uc) || (c == '.' && pos_ + 1 < s_.size() &&
                               std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
        out.push_back(number());
      } else if (std::isalpha(uc) || c == '_') {
        std::string word = identifier();
        out.push_back({is_keyword(word) ? Tok::keyword : Tok::ident, word, 0.0, start});
      } else if (c == '"' || c == '\'') {
        out.push_back(string_literal());
      } else if (c == '@') {
        ++pos_;
        out.push_back({Tok::at, "@", 0.0, start});
        out.push_back(symbol_name());
      } else if (c == '(') {
        ++pos_;
        out.push_back({Tok::lparen, "(", 0.0, start});
      } else if (c == ')') {
        ++pos_;
        out.push_back({Tok::rparen, ")", 0.0, start});
      } else if (c == ',') {
        ++pos_;
        out.push_back({Tok::comma, ",", 0.0, start});
      } else if (c == '.') {
        ++pos_;
        out.push_back({Tok::dot, ".", 0.0, start});
      } else {
        out.push_back(op());
      }
    }
  }

 private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }

  Token number() {
    const int start = static_cast<int>(pos_);
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      std::size_t p = pos_ + 1;
      if (p < s_.size() && (s_[p] == '+' || s_[p] == '-')) ++p;
      if (p >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[p])))
        fail_at(src_, static_cast<int>(p), "malformed number exponent; expected digits after 'e'");
      pos_ = p;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      fail_at(src_, static_cast<int>(pos_),
              std::string("unexpected character '") + s_[pos_] +
                  "' after a number; expected an operator, ',' or ')'");
    const std::string text = s_.substr(start, pos_ - start);
    return {Tok::number, text, std::strtod(text.c_str(), nullptr), start};
  }

  std::string identifier() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      ++pos_;
    return s_.substr(start, pos_ - start);
  }

  Token string_literal() {
    const int start = static_cast<int>(pos_);
    const char quote = s_[pos_++];
    const std::size_t close = s_.find(quote, pos_);
    if (close == std::string::npos || s_.find('\n', pos_) < close)
      fail_at(src_, start, "unterminated string; expected a closing " + std::string(1, quote));
    std::string text = s_.substr(pos_, close - pos_);
    pos_ = close + 1;
    return {Tok::string, text, 0.0, start};
  }

  // After '@': a symbol name, bare ([A-Za-z0-9_]+, may start with a digit) or quoted.
  Token symbol_name() {
    const int start = static_cast<int>(pos_);
    if (pos_ < s_.size() && (s_[pos_] == '"' || s_[pos_] == '\'')) {
      Token t = string_literal();
      t.kind = Tok::symbol;
      t.offset += 1;
      if (t.text.empty()) fail_at(src_, start, "empty symbol name; expected a symbol after '@'");
      return t;
    }
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      ++pos_;
    if (static_cast<int>(pos_) == start)
      fail_at(src_, start,
              "missing symbol after '@'; expected a symbol name such as close@BBB "
              "(quote names with other characters: close@\"BTC-USD\")");
    return {Tok::symbol, s_.substr(start, pos_ - start), 0.0, start};
  }

  Token op() {
    const int start = static_cast<int>(pos_);
    const char c = s_[pos_];
    const char n = pos_ + 1 < s_.size() ? s_[pos_ + 1] : '\0';
    auto two = [&](const char* text) {
      pos_ += 2;
      return Token{Tok::op, text, 0.0, start};
    };
    auto one = [&](const char* text) {
      pos_ += 1;
      return Token{Tok::op, text, 0.0, start};
    };
    switch (c) {
      case '+': return one("+");
      case '-': return one("-");
      case '*':
        if (n == '*') fail_at(src_, start, "'**' is not an operator; expected '*' (there is no power operator)");
        return one("*");
      case '/': return one("/");
      case '<': return n == '=' ? two("<=") : one("<");
      case '>': return n == '=' ? two(">=") : one(">");
      case '=':
        if (n == '=') return two("==");
        fail_at(src_, start, "unexpected '='; expected '==' to compare");
      case '!':
        if (n == '=') return two("!=");
        fail_at(src_, start, "unexpected '!'; expected 'not' for negation or '!=' to compare");
      case '&':
        fail_at(src_, start, "unexpected '&'; expected 'and'");
      case '|':
        fail_at(src_, start, "unexpected '|'; expected 'or'");
      default:
        break;
    }
    fail_at(src_, start, std::string("unexpected character '") + c + "'; expected an expression");
  }

  const SourceText& src_;
  const std::string& s_;
  std::size_t pos_ = 0;
};

class Parser {
 public:
  Parser(const SourceText& src, std::vector<Token> tokens) : src_(src), toks_(std::move(tokens)) {}

  AstNode run() {
    if (peek().kind == Tok::end) fail_at(src_, peek().offset, "empty expression; expected an expression");
    AstNode root = expr(0);
    if (peek().kind != Tok::end) {
      const Token& t = peek();
      std::string expected = "an operator or end of expression";
      if (t.kind == Tok::rparen) {
        fail_at(src_, t.offset, "unmatched ')'; expected " + expected);
      }
      fail_at(src_, t.offset, "unexpected " + describe(t) + "; expected " + expected);
    }
    return root;
  }

 private:
  const Token& peek() const { return toks_[pos_]; }
  Token next() { return toks_[pos_++]; }
  bool at_op(const char* text) const { return peek().kind == Tok::op && peek().text == text; }
  bool at_keyword(const char* text) const {
    return peek().kind == Tok::keyword && peek().text == text;
  }

  // Guards recursion: `depth` counts nested parenthesised/call/unary levels.
  void enter(int depth, int offset) {
    if (depth > max_expression_depth)
      fail_at(src_, offset,
              "expression nested deeper than " + std::to_string(max_expression_depth) +
                  " levels; expected a flatter expression (split it into signals)",
              ErrorCategory::limit);
  }

  AstNode make_binary(const std::string& op, AstNode lhs, AstNode rhs, int offset) {
    AstNode n;
    n.kind = AstNode::Kind::binary;
    n.text = op;
    n.offset = offset;
    n.depth = std::max(lhs.depth, rhs.depth) + 1;
    if (n.depth > max_expression_depth) enter(n.depth, offset);
    n.args.push_back(std::move(lhs));
    n.args.push_back(std::move(rhs));
    return n;
  }

  AstNode make_unary(const std::string& op, AstNode operand, int offset) {
    AstNode n;
    n.kind = AstNode::Kind::unary;
    n.text = op;
    n.offset = offset;
    n.depth = operand.depth + 1;
    if (n.depth > max_expression_depth) enter(n.depth, offset);
    n.args.push_back(std::move(operand));
    return n;
  }

  AstNode expr(int depth) {
    enter(depth, peek().offset);
    return or_expr(depth);
  }

  AstNode or_expr(int depth) {
    AstNode lhs = and_expr(depth);
    while (at_keyword("or")) {
      const int off = next().offset;
      lhs = make_binary("or", std::move(lhs), and_expr(depth), off);
    }
    return lhs;
  }

  AstNode and_expr(int depth) {
    AstNode lhs = not_expr(depth);
    while (at_keyword("and")) {
      const int off = next().offset;
      lhs = make_binary("and", std::move(lhs), not_expr(depth), off);
    }
    return lhs;
  }

  AstNode not_expr(int depth) {
    if (at_keyword("not")) {
      const int off = next().offset;
      enter(depth + 1, off);
      return make_unary("not", not_expr(depth + 1), off);
    }
    return comparison(depth);
  }

  static bool is_comparison(const Token& t) {
    return t.kind == Tok::op && (t.text == "<" || t.text == "<=" || t.text == ">" ||
                                 t.text == ">=" || t.text == "==" || t.text == "!=");
  }

  AstNode comparison(int depth) {
    AstNode lhs = additive(depth);
    if (is_comparison(peek())) {
      const Token op = next();
      AstNode rhs = additive(depth);
      if (is_comparison(peek()))
        fail_at(src_, peek().offset,
                "comparisons cannot be chained; expected 'and' between two comparisons "
                "(a < b and b < c)");
      return make_binary(op.text, std::move(lhs), std::move(rhs), op.offset);
    }
    return lhs;
  }

  AstNode additive(int depth) {
    AstNode lhs = multiplicative(depth);
    while (at_op("+") || at_op("-")) {
      const Token op = next();
      lhs = make_binary(op.text, std::move(lhs), multiplicative(depth), op.offset);
    }
    return lhs;
  }

  AstNode multiplicative(int depth) {
    AstNode lhs = unary(depth);
    while (at_op("*") || at_op("/")) {
      const Token op = next();
      lhs = make_binary(op.text, std::move(lhs), unary(depth), op.offset);
    }
    return lhs;
  }

  AstNode unary(int depth) {
    if (at_op("-")) {
      const int off = next().offset;
      enter(depth + 1, off);
      return make_unary("-", unary(depth + 1), off);
    }
    if (at_op("+")) {
      const int off = peek().offset;
      fail_at(src_, off, "unary '+' is not supported; expected an expression");
    }
    return primary(depth);
  }

  [[noreturn]] void expected_operand(const Token& t) {
    if (t.kind == Tok::end) fail_at(src_, t.offset, "unexpected end of expression; expected an operand");
    if (t.kind == Tok::keyword)
      fail_at(src_, t.offset, "unexpected '" + t.text + "'; expected an operand before it");
    fail_at(src_, t.offset, "unexpected " + describe(t) + "; expected an operand");
  }

  AstNode primary(int depth) {
    const Token t = next();
    switch (t.kind) {
      case Tok::number: {
        AstNode n;
        n.kind = AstNode::Kind::number;
        n.number = t.number;
        n.text = t.text;
        n.offset = t.offset;
        return n;
      }
      case Tok::string: {
        AstNode n;
        n.kind = AstNode::Kind::string;
        n.text = t.text;
        n.offset = t.offset;
        return n;
      }
      case Tok::lparen: {
        AstNode inner = expr(depth + 1);
        if (peek().kind != Tok::rparen)
          fail_at(src_, peek().offset,
                  "unexpected " + describe(peek()) + "; expected ')' to close the '(' at " +
                      location_of(src_, t.offset));
        next();
        return inner;
      }
      case Tok::ident: return name_or_call(t, depth);
      default: expected_operand(t);
    }
  }

  AstNode name_or_call(const Token& t, int depth) {
    if (peek().kind == Tok::lparen) {
      const Token open = next();
      AstNode call;
      call.kind = AstNode::Kind::call;
      call.text = t.text;
      call.offset = t.offset;
      if (peek().kind != Tok::rparen) {
        while (true) {
          if (peek().kind == Tok::comma || peek().kind == Tok::rparen)
            fail_at(src_, peek().offset, "missing argument; expected an expression");
          call.args.push_back(expr(depth + 1));
          if (peek().kind == Tok::comma) {
            next();
            continue;
          }
          if (peek().kind == Tok::rparen) break;
          fail_at(src_, peek().offset,
                  "unexpected " + describe(peek()) + "; expected ',' or ')' to close the call of " +
                      t.text + "() at " + location_of(src_, open.offset));
        }
      }
      next();  // ')'
      int d = 1;
      for (const auto& a : call.args) d = std::max(d, a.depth + 1);
      call.depth = d;
      if (d > max_expression_depth) enter(d, t.offset);
      return call;
    }
    AstNode n;
    n.kind = AstNode::Kind::name;
    n.text = t.text;
    n.offset = t.offset;
    if (peek().kind == Tok::dot) {
      next();
      if (peek().kind != Tok::ident)
        fail_at(src_, peek().offset,
                "unexpected " + describe(peek()) + "; expected an output name after '" + t.text +
                    ".' (e.g. kf.level)");
      const Token f = next();
      n.field = f.text;
      n.field_offset = f.offset;
    }
    if (peek().kind == Tok::at) {
      next();
      const Token s = next();  // the lexer always emits a symbol after '@'
      n.symbol = s.text;
      n.symbol_offset = s.offset;
    }
    return n;
  }

  const SourceText& src_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
};

}  // namespace

AstNode parse_expression(const SourceText& source) {
  if (source.text.size() > max_expression_chars)
    throw Error(ErrorCategory::limit,
                source.where() + ": expression is " + std::to_string(source.text.size()) +
                    " characters long; the limit is " + std::to_string(max_expression_chars) +
                    " (split it into signals)");
  Lexer lexer(source);
  Parser parser(source, lexer.run());
  return parser.run();
}

}  // namespace kbt
