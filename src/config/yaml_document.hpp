#pragma once
// A parsed YAML document that remembers its text, so that every error and every
// expression can name file:line:col of the exact character a user wrote.
// Host-only helper of the config loader.

#include <kbt/core/error.hpp>
#include <kbt/core/source_text.hpp>
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace kbt::detail {

// One `key: value` pair of a mapping, in written order.
struct YamlEntry {
  std::string name;
  YAML::Node key;
  YAML::Node value;
};

class YamlDocument {
 public:
  // Parses `text`; a syntax error is a config error "file:line:col: YAML syntax error: ...".
  YamlDocument(std::string text, std::string source_name);

  const YAML::Node& root() const { return root_; }
  const std::string& text() const { return text_; }
  const std::string& source_name() const { return source_name_; }

  // "file:line:col" of a node (1-based). For a value node, pass its key as well:
  // an empty value (`key:`) is then located at the key instead of the next token.
  std::string where(const YAML::Node& node) const;
  std::string where(const YamlEntry& entry) const;

  // Throws kbt::Error(category, "where: message").
  [[noreturn]] void fail(ErrorCategory category, const YAML::Node& at, const std::string& message) const;
  [[noreturn]] void fail(ErrorCategory category, const YamlEntry& at, const std::string& message) const;

  // The scalar's text with the position of its first content character: after an
  // anchor or tag, one column after an opening quote, or the first character of the
  // first non-blank line of a block scalar (| or >). Trailing blanks are dropped.
  SourceText source_text(const YAML::Node& scalar) const;
  // Where an entry's value stands (see where(YamlEntry)), with the scalar text if any.
  SourceText value_origin(const YamlEntry& entry) const;

  // The entries of a mapping in written order. Rejects a non-mapping (`context`
  // names it, e.g. "simulation"), non-scalar or duplicate keys, and - when `allowed`
  // is non-empty - unknown keys, with a "did you mean" suggestion.
  std::vector<YamlEntry> entries(const YAML::Node& map, const std::string& context,
                                 const std::vector<std::string>& allowed) const;
  std::vector<YamlEntry> entries(const YamlEntry& map_entry, const std::string& context,
                                 const std::vector<std::string>& allowed) const;

  // A 0-based character offset in text() as 1-based line and column.
  void line_column(std::size_t offset, int& line, int& column) const;

 private:
  std::string text_;
  std::string source_name_;
  std::vector<std::size_t> line_starts_;  // offset of the first character of each line
  YAML::Node root_;
  std::size_t bom_ = 0;  // yaml-cpp's marks do not count a leading UTF-8 byte-order mark

  // A mark's offset in text_, or npos when yaml-cpp gives none.
  std::size_t offset_of(const YAML::Mark& mark) const;

  std::string where_offset(std::size_t offset) const;
  std::size_t content_offset(const YAML::Node& node) const;
  bool is_explicit_null_at(std::size_t offset) const;
};

// Finds `entry` named `name`, or nullptr.
const YamlEntry* find_entry(const std::vector<YamlEntry>& entries, const std::string& name);

// "a mapping", "a list", "'text'", "null": how a value looks, for error messages.
std::string describe_value(const YAML::Node& node);

}  // namespace kbt::detail
