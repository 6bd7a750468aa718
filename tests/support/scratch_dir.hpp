#pragma once
// A fresh folder under the system's temporary directory for one test, named
// by the test and this process (ctest may run copies of a binary at once),
// removed with everything in it when the test ends.

#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace kbt::test {

struct ScratchDir {
  std::filesystem::path dir;
  explicit ScratchDir(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / ("kbt_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

}  // namespace kbt::test
