#pragma once
// What each MPI rank of a shared sweep did, for `mpirun kbt run`'s output
// (docs/mpi.md "Output"): read from the run profile's per-rank entries.

#include <kbt/output/results.hpp>

#include <string>

namespace kbt::cli {

// "shared by N MPI ranks:" and a line per rank (device, combos, seconds);
// empty for a run of one process.
std::string format_rank_shares(const RunProfile& profile);

}  // namespace kbt::cli
