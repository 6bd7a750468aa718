#pragma once
// Crafted calibration files for the calibration tests.

#include <kbt/calibration/calibration.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace kbt::test {

inline SpaceCostModel cost_model(const std::string& space, double fixed, double base, double per_instruction,
                                 double per_window_read = 0) {
  SpaceCostModel m;
  m.space = space;
  m.fixed_seconds = fixed;
  m.per_bar_combo_base = base;
  m.per_instruction = per_instruction;
  m.per_window_read = per_window_read;
  m.n_points = 12;
  return m;
}

// A calibration of `machine` with the given models and one point each.
inline Calibration crafted_calibration(const MachineIdentity& machine, const std::vector<SpaceCostModel>& models) {
  Calibration c;
  c.kbt_version = "test";
  c.created_utc = "2026-01-01T00:00:00Z";
  c.mode = "crafted";
  c.machine = machine;
  c.models = models;
  const Complexity k{5, 0};
  for (const auto& m : models) c.points.push_back({m.space, "sma_cross", 100, 1000, k, m.predict_seconds(100, 1000, k)});
  c.break_even = break_even_table(models, {1000}, {{"sma_cross", k}});
  return c;
}

// A new empty directory; the process id keeps the .threads1/.threads2 runs of an
// OpenMP build, which ctest may start at the same time, apart.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kbt_calibration_" + name + "_" + std::to_string(::getpid()));
  // Removed when the test binary exits.
  static struct Cleanup {
    std::vector<std::filesystem::path> dirs;
    ~Cleanup() {
      std::error_code ec;
      for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
    }
  } cleanup;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  cleanup.dirs.push_back(dir);
  return dir;
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) had_ = true, old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) ::setenv(name_.c_str(), old_.c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

}  // namespace kbt::test
