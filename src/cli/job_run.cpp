#include "cli/job_run.hpp"

#include <cstdio>

namespace kbt::cli {

RunProfile job_profile(const char* job, const std::string& device, const RunConfig& config, double seconds_load) {
  RunProfile profile;
  profile.set("job", job);
  profile.set("device", device);
  profile.set("config_path", config.source_path);
  profile.set("data_path", config.data_path);
  profile.set("seconds_load", seconds_load);
  return profile;
}

void print_job_profile(const RunProfile& profile, double seconds_write) {
  std::printf("profile:\n");
  for (const auto& [k, v] : profile.text) std::printf("  %-22s %s\n", k.c_str(), v.c_str());
  for (const auto& [k, v] : profile.numbers) std::printf("  %-22s %.6g\n", k.c_str(), v);
  std::printf("  %-22s %.6g\n", "seconds_write", seconds_write);
}

}  // namespace kbt::cli
