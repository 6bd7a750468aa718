// The byte stream of market_data_wire.hpp:
//   tag 'D' | timestamps | symbols | venues | columns | exo | end marker
//   tag 'E' | category (u32) | message | end marker
// with vectors as (u64 count, raw elements), strings as (u64 length, bytes),
// maps as (u64 count, then name + value per entry, in map order).

#include "data/market_data_wire.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <unistd.h>

namespace kbt::detail {
namespace {

constexpr std::uint32_t kEndMarker = 0x4b425421;  // "KBT!"
// A sanity cap on any count in the stream: a corrupt or truncated stream must
// not make the reader allocate without bound (2^40 elements is beyond any bar file).
constexpr std::uint64_t kMaxCount = std::uint64_t(1) << 40;

class Writer {
 public:
  explicit Writer(int fd) : fd_(fd) {}
  bool ok() const { return ok_; }

  void bytes(const void* data, std::size_t n) {
    const char* p = static_cast<const char*>(data);
    while (ok_ && n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        ok_ = false;
        return;
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  }
  template <class T>
  void scalar(T value) { bytes(&value, sizeof value); }
  void string(const std::string& s) {
    scalar<std::uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  template <class T>
  void vector(const std::vector<T>& v) {
    scalar<std::uint64_t>(v.size());
    bytes(v.data(), v.size() * sizeof(T));
  }
  void strings(const std::vector<std::string>& v) {
    scalar<std::uint64_t>(v.size());
    for (const auto& s : v) string(s);
  }

 private:
  int fd_;
  bool ok_ = true;
};

class Reader {
 public:
  explicit Reader(int fd) : fd_(fd) {}
  bool ok() const { return ok_; }

  void bytes(void* data, std::size_t n) {
    char* p = static_cast<char*>(data);
    while (ok_ && n > 0) {
      const ssize_t r = ::read(fd_, p, n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        ok_ = false;
        return;
      }
      p += r;
      n -= static_cast<std::size_t>(r);
    }
  }
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

bool write_market_data(int fd, const MarketData& data) {
  Writer w(fd);
  w.scalar<char>('D');
  w.vector(data.bars.timestamps);
  w.strings(data.bars.symbols);
  w.strings(data.bars.venues);
  w.scalar<std::uint64_t>(data.bars.columns.size());
  for (const auto& [name, values] : data.bars.columns) {
    w.string(name);
    w.vector(values);
  }
  w.scalar<std::uint64_t>(data.exo.size());
  for (const auto& [name, series] : data.exo) {
    w.string(name);
    w.vector(series.timestamps);
    w.vector(series.values);
  }
  w.scalar(kEndMarker);
  return w.ok();
}

bool write_read_error(int fd, ErrorCategory category, const std::string& message) {
  Writer w(fd);
  w.scalar<char>('E');
  w.scalar<std::uint32_t>(static_cast<std::uint32_t>(category));
  w.string(message);
  w.scalar(kEndMarker);
  return w.ok();
}

WireMessage read_wire_message(int fd) {
  Reader r(fd);
  WireMessage m;
  const char tag = r.scalar<char>();
  if (tag == 'D') {
    BarData& bars = m.data.bars;
    bars.timestamps = r.vector<std::int64_t>();
    bars.symbols = r.strings();
    bars.venues = r.strings();
    for (std::uint64_t i = 0, n = r.count(); r.ok() && i < n; ++i) {
      std::string name = r.string();
      bars.columns[name] = r.vector<double>();
    }
    for (std::uint64_t i = 0, n = r.count(); r.ok() && i < n; ++i) {
      std::string name = r.string();
      ExoSeries& s = m.data.exo[name];
      s.timestamps = r.vector<std::int64_t>();
      s.values = r.vector<double>();
    }
  } else if (tag == 'E') {
    m.is_error = true;
    const auto category = r.scalar<std::uint32_t>();
    m.category = category <= static_cast<std::uint32_t>(ErrorCategory::internal) ? static_cast<ErrorCategory>(category)
                                                                                  : ErrorCategory::internal;
    m.message = r.string();
  } else {
    return m;
  }
  m.complete = r.ok() && r.scalar<std::uint32_t>() == kEndMarker && r.ok();
  return m;
}

}  // namespace kbt::detail
