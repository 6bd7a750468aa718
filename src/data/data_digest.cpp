#include <kbt/data/data_digest.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace kbt {
namespace {

// The xxHash64 round and avalanche (public-domain constants), over 8-byte
// words in four independent lanes so that a long column hashes at memory speed.
constexpr std::uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full, P3 = 0x165667B19E3779F9ull,
                        P4 = 0x85EBCA77C2B2AE63ull;

constexpr std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
constexpr std::uint64_t round(std::uint64_t acc, std::uint64_t w) { return rotl(acc + w * P2, 31) * P1; }

class Digest {
 public:
  void word(std::uint64_t w) {
    std::uint64_t& lane = lane_[n_ & 3];
    lane = round(lane, w);
    ++n_;
  }
  template <class T>
  void words(const T* data, std::size_t n) {
    static_assert(sizeof(T) == 8, "8-byte values");
    word(n);
    std::size_t i = 0;
    if ((n_ & 3) == 0) {  // aligned on the lanes: the unrolled loop
      for (; i + 4 <= n; i += 4) {
        std::uint64_t w[4];
        std::memcpy(w, data + i, sizeof w);
        for (int k = 0; k < 4; ++k) lane_[k] = round(lane_[k], w[k]);
        n_ += 4;
      }
    }
    for (; i < n; ++i) {
      std::uint64_t w;
      std::memcpy(&w, data + i, 8);
      word(w);
    }
  }
  void text(const std::string& s) {
    word(s.size());
    for (std::size_t i = 0; i < s.size(); i += 8) {
      std::uint64_t w = 0;
      std::memcpy(&w, s.data() + i, std::min<std::size_t>(8, s.size() - i));
      word(w);
    }
  }
  std::uint64_t finish() const {
    std::uint64_t h = rotl(lane_[0], 1) + rotl(lane_[1], 7) + rotl(lane_[2], 12) + rotl(lane_[3], 18);
    for (std::uint64_t l : lane_) h = (h ^ round(0, l)) * P1 + P4;
    h += n_ * 8;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
  }

 private:
  std::uint64_t lane_[4] = {P1 + P2, P2, 0, 0 - P1};
  std::uint64_t n_ = 0;
};

}  // namespace

std::string data_digest(const BarData& bars) {
  Digest d;
  d.text("timestamps");
  d.words(bars.timestamps.data(), bars.timestamps.size());
  d.text("symbols");
  d.word(bars.symbols.size());
  for (const auto& s : bars.symbols) d.text(s);
  d.text("venues");
  d.word(bars.venues.size());
  for (const auto& v : bars.venues) d.text(v);
  for (const auto* group : {&bars.columns, &bars.exo}) {
    d.text(group == &bars.columns ? "columns" : "exo");
    d.word(group->size());
    for (const auto& [name, values] : *group) {  // std::map: by name
      d.text(name);
      d.words(values.data(), values.size());
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(d.finish()));
  return hex;
}

}  // namespace kbt
