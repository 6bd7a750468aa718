#pragma once
// The CLI under mpirun (docs/mpi.md): MPI initialised before Kokkos and
// finalised after it — only when an MPI launcher started the process — each rank's GPU chosen from its node-local rank, and
// the one exchange over MPI_COMM_WORLD that `kbt run` shares its sweep with.
// Without KBT_ENABLE_MPI every call is a no-op: one process, rank 0.

#include <kbt/sweep/chunk_exchange.hpp>

#include <string>
#include <vector>

namespace kbt::cli {

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();  // the exchange freed, then MPI_Finalize
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

int world_rank();
int world_size();
inline bool is_root_rank() { return world_rank() == 0; }

// The Kokkos arguments with this rank's device added (CUDA builds under
// mpirun: node-local rank modulo the GPUs), unless they choose one already
// (--kokkos-device-id, --kokkos-map-device-id-by).
void add_device_argument(std::vector<char*>& kokkos_args);

// The exchange of a sweep among MPI_COMM_WORLD's ranks; null with one rank
// or without MPI. Made on first use (collectively: every rank runs kbt run).
ChunkExchange* world_exchange();

// An error outside the agreed ones on one rank of several: printed with the
// rank, then every rank is stopped (MPI_Abort). Returns without MPI or with
// one rank.
void abort_other_ranks(const std::string& message, int exit_code);

}  // namespace kbt::cli
