#pragma once
// Damaging a file kbt wrote, the way disks and copies do: seeded bit flips and
// truncation (the damaged-file tests, docs/testing.md "Faults").

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

namespace kbt::test {

inline std::string bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// `clean` with `least` to `least + spread - 1` random bits flipped.
inline std::string flipped(const std::string& clean, std::mt19937_64& rng, int least = 8, int spread = 57) {
  std::string b = clean;
  const int flips = least + static_cast<int>(rng() % static_cast<unsigned>(spread));
  for (int i = 0; i < flips; ++i) b[rng() % b.size()] ^= static_cast<char>(1u << (rng() % 8));
  return b;
}

}  // namespace kbt::test
