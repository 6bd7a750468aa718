// The byte stream of market_data_wire.hpp, a sequence of records:
//   'A' timestamps symbols venues      the bar axis (once, first)
//   'C' name values                    one per-symbol column
//   'X' count (name timestamps values)...   the exo series
//   'Z' marker                         end: the data is complete
//   'E' category (u32) message marker  instead of 'Z': the read failed
// vectors as (u64 count, raw elements), strings as (u64 length, bytes).

#include "data/market_data_wire.hpp"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace kbt::detail {
namespace {

constexpr std::uint32_t kEndMarker = 0x4b425421;  // "KBT!"
// A sanity cap on any count in the stream: a corrupt or truncated stream must
// not make the reader allocate without bound (2^40 elements is beyond any bar file).
constexpr std::uint64_t kMaxCount = std::uint64_t(1) << 40;

// All `n` bytes through read(2) or write(2) (`io`), across short transfers
// and EINTR; false at end of stream or on an error.
template <class Io, class Byte>
bool transfer_all(Io io, int fd, Byte* p, std::size_t n) {
  while (n > 0) {
    const ssize_t done = io(fd, p, n);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return false;
    p += done;
    n -= static_cast<std::size_t>(done);
  }
  return true;
}

class Reader {
 public:
  explicit Reader(int fd) : fd_(fd) {}
  bool ok() const { return ok_; }

  void bytes(void* data, std::size_t n) { ok_ = ok_ && transfer_all(::read, fd_, static_cast<char*>(data), n); }
  template <class T>
  T scalar() {
    T value{};
    bytes(&value, sizeof value);
    return value;
  }
  std::uint64_t count() {
    const auto n = scalar<std::uint64_t>();
    if (n > kMaxCount) ok_ = false;
    return ok_ ? n : 0;
  }
  std::string string() {
    std::string s(count(), '\0');
    bytes(s.data(), s.size());
    return s;
  }
  template <class T>
  std::vector<T> vector() {
    std::vector<T> v(count());
    bytes(v.data(), v.size() * sizeof(T));
    return v;
  }
  std::vector<std::string> strings() {
    std::vector<std::string> v(count());
    for (auto& s : v) s = string();
    return v;
  }

 private:
  int fd_;
  bool ok_ = true;
};

}  // namespace

void WireWriter::bytes(const void* data, std::size_t n) {
  ok_ = ok_ && transfer_all(::write, fd_, static_cast<const char*>(data), n);
}

void WireWriter::string(const std::string& s) {
  scalar<std::uint64_t>(s.size());
  bytes(s.data(), s.size());
}

void WireWriter::strings(const std::vector<std::string>& v) {
  scalar<std::uint64_t>(v.size());
  for (const auto& s : v) string(s);
}

void WireWriter::bars_axis(const std::vector<std::int64_t>& timestamps, const std::vector<std::string>& symbols,
                           const std::vector<std::string>& venues) {
  scalar<char>('A');
  vector(timestamps);
  strings(symbols);
  strings(venues);
}

void WireWriter::column(const std::string& name, const std::vector<double>& values) {
  scalar<char>('C');
  string(name);
  vector(values);
}

void WireWriter::exo(const std::map<std::string, ExoSeries>& series) {
  scalar<char>('X');
  scalar<std::uint64_t>(series.size());
  for (const auto& [name, s] : series) {
    string(name);
    vector(s.timestamps);
    vector(s.values);
  }
}

void WireWriter::end() {
  scalar<char>('Z');
  scalar(kEndMarker);
}

void WireWriter::error(ErrorCategory category, const std::string& message) {
  scalar<char>('E');
  scalar<std::uint32_t>(static_cast<std::uint32_t>(category));
  string(message);
  scalar(kEndMarker);
}

WireMessage read_wire_message(int fd) {
  Reader r(fd);
  WireMessage m;
  while (r.ok()) {
    const char tag = r.scalar<char>();
    if (!r.ok()) break;
    if (tag == 'A') {
      m.data.bars.timestamps = r.vector<std::int64_t>();
      m.data.bars.symbols = r.strings();
      m.data.bars.venues = r.strings();
    } else if (tag == 'C') {
      std::string name = r.string();
      m.data.bars.columns[name] = r.vector<double>();
    } else if (tag == 'X') {
      for (std::uint64_t i = 0, n = r.count(); r.ok() && i < n; ++i) {
        std::string name = r.string();
        ExoSeries& s = m.data.exo[name];
        s.timestamps = r.vector<std::int64_t>();
        s.values = r.vector<double>();
      }
    } else if (tag == 'Z') {
      m.complete = r.scalar<std::uint32_t>() == kEndMarker && r.ok();
      return m;
    } else if (tag == 'E') {
      // An error after some parts: the parts are dropped, the error is the answer.
      m = WireMessage{};
      m.is_error = true;
      const auto category = r.scalar<std::uint32_t>();
      m.category = category <= static_cast<std::uint32_t>(ErrorCategory::internal)
                       ? static_cast<ErrorCategory>(category)
                       : ErrorCategory::internal;
      m.message = r.string();
      m.complete = r.scalar<std::uint32_t>() == kEndMarker && r.ok();
      return m;
    } else {
      break;  // garbage: not a stream this binary wrote
    }
  }
  return WireMessage{};
}

}  // namespace kbt::detail
