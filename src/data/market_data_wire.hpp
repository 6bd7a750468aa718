#pragma once
// MarketData through a file descriptor (internal): how a child process that
// reads an HDF5 file hands the result back to kbt (isolated_read.hpp), part by
// part as the read goes. Raw native-endian bytes, both ends being the same
// binary; the stream ends with a marker so that a child dying mid-write is
// told apart from a complete answer.

#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kbt::detail {

// One writer per stream; each call sends one record. ok() turns false for
// good when the descriptor refuses bytes (the parent went away).
class WireWriter {
 public:
  explicit WireWriter(int fd) : fd_(fd) {}
  bool ok() const { return ok_; }

  void bars_axis(const std::vector<std::int64_t>& timestamps, const std::vector<std::string>& symbols,
                 const std::vector<std::string>& venues);
  void column(const std::string& name, const std::vector<double>& values);
  void exo(const std::map<std::string, ExoSeries>& series);
  void end();  // after the last part: the data is complete
  void error(ErrorCategory category, const std::string& message);  // instead of end()

 private:
  void bytes(const void* data, std::size_t n);
  template <class T>
  void scalar(T value) { bytes(&value, sizeof value); }
  void string(const std::string& s);
  void strings(const std::vector<std::string>& v);
  template <class T>
  void vector(const std::vector<T>& v) {
    scalar<std::uint64_t>(v.size());
    bytes(v.data(), v.size() * sizeof(T));
  }

  int fd_;
  bool ok_ = true;
};

// What one stream carried: data, an error, or nothing complete (the writer
// died or wrote garbage); `complete` is true only for a whole message.
struct WireMessage {
  bool complete = false;
  bool is_error = false;
  MarketData data;
  ErrorCategory category = ErrorCategory::internal;
  std::string message;
};
// Reads records from `fd` until the end or error record, or end of stream.
WireMessage read_wire_message(int fd);

}  // namespace kbt::detail
