#include "config/yaml_document.hpp"

#include "config/suggest.hpp"

#include <algorithm>
#include <sstream>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <utility>

namespace kbt::detail {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool is_space(char c) { return is_blank(c) || c == '\n' || c == '\r'; }

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + items[i];
  return s;
}

// Counts documents and remembers where the second one's first node is.
struct DocumentCounter : YAML::EventHandler {
  int documents = 0;
  YAML::Mark second_mark = YAML::Mark::null_mark();
  bool seen_node = false;
  void node_at(const YAML::Mark& mark) {
    if (documents == 2 && !seen_node) second_mark = mark;
    seen_node = true;
  }
  void OnDocumentStart(const YAML::Mark& mark) override {
    ++documents;
    seen_node = false;
    if (documents == 2) second_mark = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node_at(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node_at(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    node_at(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node_at(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node_at(mark);
  }
  void OnMapEnd() override {}
};

}  // namespace

YamlDocument::YamlDocument(std::string text, std::string source_name)
    : text_(std::move(text)), source_name_(std::move(source_name)) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) bom_ = 3;
  try {
    // Not YAML::LoadAll: on a stray ',' at document level yaml-cpp 0.7 yields
    // empty documents without end (found by fuzzing). Count up to two instead.
    std::istringstream stream(text_);
    YAML::Parser parser(stream);
    DocumentCounter counter;
    while (counter.documents < 2 && parser.HandleNextDocument(counter)) {
    }
    if (counter.documents > 1) {
      const std::size_t pos = counter.second_mark.pos >= 0 ? static_cast<std::size_t>(counter.second_mark.pos) : 0;
      throw Error(ErrorCategory::config, where_offset(std::min(pos + bom_, text_.size())) +
                                             ": a run config is one YAML document; this file holds 2 or more");
    }
    root_ = YAML::Load(text_);
  } catch (const YAML::Exception& e) {
    std::string where = source_name_;
    if (e.mark.line >= 0) {
      where += ":" + std::to_string(e.mark.line + 1);
      if (e.mark.column >= 0) where += ":" + std::to_string(e.mark.column + 1);
    }
    throw Error(ErrorCategory::config, where + ": YAML syntax error: " + e.msg);
  }
}

void YamlDocument::line_column(std::size_t offset, int& line, int& column) const {
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const std::size_t index = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
  line = static_cast<int>(index) + 1;
  column = static_cast<int>(offset - line_starts_[index]) + 1;
}

std::string YamlDocument::where_offset(std::size_t offset) const {
  int line = 0, column = 0;
  line_column(offset, line, column);
  return source_name_ + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::size_t YamlDocument::offset_of(const YAML::Mark& mark) const {
  if (mark.pos < 0 || mark.line < 0) return std::string::npos;
  return std::min(static_cast<std::size_t>(mark.pos) + bom_, text_.size());
}

std::string YamlDocument::where(const YAML::Node& node) const {
  const std::size_t offset = offset_of(node.Mark());
  if (offset == std::string::npos) return source_name_ + ":1:1";
  return where_offset(offset);
}

bool YamlDocument::is_explicit_null_at(std::size_t offset) const {
  if (offset >= text_.size()) return false;
  for (const char* word : {"null", "Null", "NULL", "~"}) {
    const std::string w(word);
    if (text_.compare(offset, w.size(), w) == 0) return true;
  }
  return false;
}

std::string YamlDocument::where(const YamlEntry& entry) const {
  // yaml-cpp marks an empty value (`key:` followed by a newline) at the next token,
  // which may be the next key: name the key instead.
  if (entry.value.IsNull()) {
    const std::size_t offset = offset_of(entry.value.Mark());
    if (offset == std::string::npos || !is_explicit_null_at(offset)) return where(entry.key);
  }
  return where(entry.value);
}

void YamlDocument::fail(ErrorCategory category, const YAML::Node& at, const std::string& message) const {
  throw Error(category, where(at) + ": " + message);
}

void YamlDocument::fail(ErrorCategory category, const YamlEntry& at, const std::string& message) const {
  throw Error(category, where(at) + ": " + message);
}

std::size_t YamlDocument::content_offset(const YAML::Node& node) const {
  const std::size_t start = offset_of(node.Mark());
  if (start == std::string::npos) return 0;
  std::size_t p = start;
  const std::size_t n = text_.size();
  // Skip node properties: anchors (&a) and tags (!t, !!str), each followed by space.
  while (p < n && (text_[p] == '&' || text_[p] == '!')) {
    while (p < n && !is_space(text_[p])) ++p;
    while (p < n && is_space(text_[p])) ++p;
  }
  if (p >= n) return start;
  if (text_[p] == '"' || text_[p] == '\'') return p + 1;
  if (text_[p] == '|' || text_[p] == '>') {
    // Block scalar: the content starts on the first non-blank line after the header.
    while (p < n && text_[p] != '\n') ++p;
    while (p < n) {
      std::size_t q = p + 1;
      while (q < n && is_blank(text_[q])) ++q;
      if (q >= n) return p;
      if (text_[q] != '\n' && text_[q] != '\r') return q;
      p = q;
      if (text_[p] == '\r' && p + 1 < n && text_[p + 1] == '\n') ++p;
    }
    return start;
  }
  return p;
}

SourceText YamlDocument::source_text(const YAML::Node& scalar) const {
  SourceText st;
  st.file = source_name_;
  st.text = scalar.IsScalar() ? scalar.Scalar() : std::string();
  while (!st.text.empty() && is_space(st.text.back())) st.text.pop_back();
  if (offset_of(scalar.Mark()) == std::string::npos) return st;
  std::size_t offset = content_offset(scalar);
  // Leading blank lines of a block scalar are already skipped by content_offset;
  // leading blanks inside quotes move the position with the text.
  std::size_t lead = 0;
  while (lead < st.text.size() && (st.text[lead] == '\n' || st.text[lead] == '\r')) ++lead;
  st.text.erase(0, lead);
  lead = 0;
  while (lead < st.text.size() && is_blank(st.text[lead]) && offset + lead < text_.size() &&
         is_blank(text_[offset + lead]))
    ++lead;
  st.text.erase(0, lead);
  offset += lead;
  line_column(offset, st.line, st.column);
  return st;
}

SourceText YamlDocument::value_origin(const YamlEntry& entry) const {
  if (entry.value.IsScalar()) return source_text(entry.value);
  SourceText st;
  st.file = source_name_;
  const std::size_t offset = offset_of((entry.value.IsNull() ? entry.key : entry.value).Mark());
  if (offset != std::string::npos) line_column(offset, st.line, st.column);
  return st;
}

std::vector<YamlEntry> YamlDocument::entries(const YAML::Node& map, const std::string& context,
                                             const std::vector<std::string>& allowed) const {
  if (!map.IsMap()) fail(ErrorCategory::config, map, context + " must be a mapping (got " + describe_value(map) + ")");
  std::vector<YamlEntry> out;
  for (auto it = map.begin(); it != map.end(); ++it) {
    YamlEntry e{std::string(), it->first, it->second};
    if (!e.key.IsScalar()) fail(ErrorCategory::config, e.key, "keys in " + context + " must be plain names");
    e.name = e.key.Scalar();
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), e.name) == allowed.end()) {
      const std::string guess = closest_match(e.name, allowed);
      std::string message = "unknown key '" + e.name + "' in " + context;
      message += guess.empty() ? "; accepted keys: " + join(allowed) : "; did you mean '" + guess + "'?";
      fail(ErrorCategory::config, e.key, message);
    }
    for (const auto& previous : out)
      if (previous.name == e.name)
        fail(ErrorCategory::config, e.key,
             "duplicate key '" + e.name + "' in " + context + " (first given at " + where(previous.key) + ")");
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<YamlEntry> YamlDocument::entries(const YamlEntry& map_entry, const std::string& context,
                                             const std::vector<std::string>& allowed) const {
  if (!map_entry.value.IsMap())
    fail(ErrorCategory::config, map_entry, context + " must be a mapping (got " + describe_value(map_entry.value) + ")");
  return entries(map_entry.value, context, allowed);
}

const YamlEntry* find_entry(const std::vector<YamlEntry>& entries, const std::string& name) {
  for (const auto& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::string describe_value(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "null";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list of " + std::to_string(node.size());
  return "'" + node.Scalar() + "'";
}

}  // namespace kbt::detail
