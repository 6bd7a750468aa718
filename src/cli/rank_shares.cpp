#include "cli/rank_shares.hpp"

#include <vector>

#include "cli/comma_list.hpp"

namespace kbt::cli {
namespace {

std::string text_of(const RunProfile& profile, const std::string& key) {
  for (const auto& [k, v] : profile.text)
    if (k == key) return v;
  return "";
}

}  // namespace

std::string format_rank_shares(const RunProfile& profile) {
  const std::vector<std::string> combos = split_list(text_of(profile, "mpi_rank_combos"));
  const std::vector<std::string> seconds = split_list(text_of(profile, "mpi_rank_seconds"));
  const std::vector<std::string> devices = split_list(text_of(profile, "mpi_rank_devices"));
  if (combos.size() < 2 || seconds.size() != combos.size() || devices.size() != combos.size()) return "";
  std::string out = "shared by " + std::to_string(combos.size()) + " MPI ranks:\n";
  for (std::size_t r = 0; r < combos.size(); ++r)
    out += "  rank " + std::to_string(r) + ": " + devices[r] + ", " + combos[r] + " combos in " + seconds[r] + " s\n";
  return out;
}

}  // namespace kbt::cli
