#pragma once
// A small JSON writer for the --json output of `kbt show` and `kbt info`
// (docs/cli.md "JSON output"): one document, written in order; numbers in
// shortest round-trip form, NaN and infinities as null.

#include <cstdint>
#include <string>
#include <vector>

namespace kbt::cli {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& name);  // then exactly one value
  JsonWriter& value(const std::string& text);
  JsonWriter& value(const char* text) { return value(std::string(text)); }
  JsonWriter& value(double number);
  JsonWriter& value(std::uint64_t number);
  JsonWriter& value(int number) { return value(static_cast<double>(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();

  // The document, ended by a newline; throws kbt::Error(internal) when an
  // object or array is still open.
  std::string text() const;

 private:
  void before_value();
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace kbt::cli
