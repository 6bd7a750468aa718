#pragma once
// Helpers shared by the tests/unit/test_data_*.cpp files.

#include <gtest/gtest.h>
#include <kbt/core/error.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/data/data_io.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <dirent.h>
#include <unistd.h>

namespace kbt::test {

// Sets where HDF5 data is read (kbt::Hdf5ReadIsolation) for its scope, then
// restores what was set before.
class ScopedHdf5ReadIsolation {
 public:
  explicit ScopedHdf5ReadIsolation(Hdf5ReadIsolation mode) : before_(hdf5_read_isolation()) {
    set_hdf5_read_isolation(mode);
  }
  ~ScopedHdf5ReadIsolation() { set_hdf5_read_isolation(before_); }
  ScopedHdf5ReadIsolation(const ScopedHdf5ReadIsolation&) = delete;
  ScopedHdf5ReadIsolation& operator=(const ScopedHdf5ReadIsolation&) = delete;

 private:
  Hdf5ReadIsolation before_;
};

// A fresh directory under $TMPDIR (or /tmp), removed with its files at scope end.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/kbt_data_test_XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data())) path_ = buf.data();
  }
  ~TempDir() {
    for (const auto& f : files()) std::remove((path_ + "/" + f).c_str());
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name), std::ios::binary) << text;
    return file(name);
  }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    if (DIR* d = ::opendir(path_.c_str())) {
      while (dirent* e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.push_back(e->d_name);
      ::closedir(d);
    }
    return out;
  }

 private:
  std::string path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Same values bit for bit (NaN == NaN of the same pattern).
inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (bits_of(a[i]) != bits_of(b[i])) return false;
  return true;
}

constexpr std::int64_t kHourNs = 3600LL * 1000000000LL;
constexpr std::int64_t k2021Ns = 1609459200LL * 1000000000LL;  // 2021-01-01T00:00:00Z

// The message of the kbt::Error that import_csv(options) throws, after
// checking its category; a test failure (and "") when it throws none.
inline std::string csv_import_error(const CsvImportOptions& options,
                                    ErrorCategory want = ErrorCategory::data_format) {
  try {
    import_csv(options);
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), want) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

}  // namespace kbt::test
