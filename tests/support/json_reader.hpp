#pragma once
// A strict JSON reader for tests of kbt's --json output (RFC 8259: one value,
// whitespace around it, nothing else). Written apart from the writer in
// src/cli so that a test reads the document as any other program would.

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbt::test {

struct Json {
  enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::vector<std::pair<std::string, Json>> object;  // in document order

  bool has(const std::string& key) const {
    for (const auto& kv : object)
      if (kv.first == key) return true;
    return false;
  }
  const Json& operator[](const std::string& key) const {
    if (kind != Kind::object) throw std::runtime_error("not an object (looking for '" + key + "')");
    for (const auto& kv : object)
      if (kv.first == key) return kv.second;
    throw std::runtime_error("no key '" + key + "'");
  }
  const Json& operator[](std::size_t i) const {
    if (kind != Kind::array || i >= array.size()) throw std::runtime_error("no element " + std::to_string(i));
    return array[i];
  }
};

class JsonReader {
 public:
  static Json parse(const std::string& text) {
    JsonReader r(text);
    r.space();
    Json v = r.value();
    r.space();
    if (r.at_ != text.size()) r.fail("text after the document");
    return v;
  }

 private:
  explicit JsonReader(const std::string& t) : t_(t) {}
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("JSON: " + why + " at offset " + std::to_string(at_));
  }
  void space() {
    while (at_ < t_.size() && (t_[at_] == ' ' || t_[at_] == '\n' || t_[at_] == '\r' || t_[at_] == '\t')) ++at_;
  }
  bool take(const std::string& word) {
    if (t_.compare(at_, word.size(), word) != 0) return false;
    at_ += word.size();
    return true;
  }
  void expect(char c) {
    if (at_ >= t_.size() || t_[at_] != c) fail(std::string("expected '") + c + "'");
    ++at_;
  }
  Json value() {
    Json v;
    if (at_ >= t_.size()) fail("unexpected end");
    const char c = t_[at_];
    if (take("null")) return v;
    if (take("true") || take("false")) {
      v.kind = Json::Kind::boolean;
      v.boolean = t_.compare(at_ - 4, 4, "true") == 0;
      return v;
    }
    if (c == '"') {
      v.kind = Json::Kind::string;
      v.string = str();
      return v;
    }
    if (c == '[') {
      v.kind = Json::Kind::array;
      ++at_;
      space();
      if (take("]")) return v;
      for (;;) {
        space();
        v.array.push_back(value());
        space();
        if (take("]")) return v;
        expect(',');
      }
    }
    if (c == '{') {
      v.kind = Json::Kind::object;
      ++at_;
      space();
      if (take("}")) return v;
      for (;;) {
        space();
        std::string key = str();
        space();
        expect(':');
        space();
        v.object.emplace_back(std::move(key), value());
        space();
        if (take("}")) return v;
        expect(',');
      }
    }
    return number();
  }
  Json number() {
    // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    const std::size_t begin = at_;
    auto digits = [&] {
      const std::size_t s = at_;
      while (at_ < t_.size() && t_[at_] >= '0' && t_[at_] <= '9') ++at_;
      return at_ - s;
    };
    take("-");
    if (take("0")) {
    } else if (digits() == 0) {
      fail("not a value");
    }
    if (take(".") && digits() == 0) fail("digits after '.'");
    if (at_ < t_.size() && (t_[at_] == 'e' || t_[at_] == 'E')) {
      ++at_;
      if (!take("+")) take("-");
      if (digits() == 0) fail("digits in the exponent");
    }
    Json v;
    v.kind = Json::Kind::number;
    v.number = std::strtod(t_.substr(begin, at_ - begin).c_str(), nullptr);
    return v;
  }
  std::string str() {
    expect('"');
    std::string out;
    while (at_ < t_.size() && t_[at_] != '"') {
      const char c = t_[at_++];
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= t_.size()) fail("unended escape");
      const char e = t_[at_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (at_ + 4 > t_.size()) fail("short \\u escape");
          const unsigned code = static_cast<unsigned>(std::strtoul(t_.substr(at_, 4).c_str(), nullptr, 16));
          at_ += 4;
          if (code >= 0x80) fail("\\u escape beyond ASCII (kbt writes UTF-8 bytes)");
          out += static_cast<char>(code);
          break;
        }
        default: fail("unknown escape");
      }
    }
    expect('"');
    return out;
  }
  const std::string& t_;
  std::size_t at_ = 0;
};

}  // namespace kbt::test
