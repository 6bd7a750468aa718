#pragma once
// MarketData through a file descriptor (internal): how a child process that
// read an HDF5 file hands the result back to kbt (isolated_read.hpp). Raw
// native-endian bytes, both ends being the same binary; the stream ends with
// a marker so that a child dying mid-write is told apart from a complete one.

#include <kbt/data_io.hpp>
#include <kbt/error.hpp>

#include <string>

namespace kbt::detail {

// Writes `data` to `fd`; returns false when the descriptor refuses the bytes.
bool write_market_data(int fd, const MarketData& data);
// Writes a kbt::Error (category and message) instead of data.
bool write_read_error(int fd, ErrorCategory category, const std::string& message);

// What one stream carried: data, an error, or nothing complete (the writer
// died or wrote garbage); `complete` is true only for a whole message.
struct WireMessage {
  bool complete = false;
  bool is_error = false;
  MarketData data;
  ErrorCategory category = ErrorCategory::internal;
  std::string message;
};
// Reads one message from `fd` until its end marker or end of stream.
WireMessage read_wire_message(int fd);

}  // namespace kbt::detail
