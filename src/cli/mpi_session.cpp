#include "cli/mpi_session.hpp"

#include <Kokkos_Core.hpp>
#include <kbt/core/version.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#if KBT_HAVE_MPI
#include <kbt/mpi/mpi_exchange.hpp>
#endif

namespace kbt::cli {
namespace {

int g_rank = 0, g_size = 1;
#if KBT_HAVE_MPI
int g_local_rank = 0;
bool g_initialized_here = false;
std::unique_ptr<MpiExchange> g_exchange;
#endif

}  // namespace

#if KBT_HAVE_MPI
namespace {

// Started by an MPI launcher (mpirun/mpiexec of OpenMPI, MPICH or MVAPICH,
// srun with PMI or PMIx)? A plain `kbt ...` never initialises MPI: a
// singleton MPI_Init would start OpenMPI's runtime (and fail where it cannot,
// e.g. without an rsh agent on PATH) for a run of one process.
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(name)) return true;
  return false;
}

}  // namespace
#endif

MpiSession::MpiSession(int* argc, char*** argv) {
#if KBT_HAVE_MPI
  if (!launched_by_mpi()) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;  // Kokkos threads never call MPI: the main thread does
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    g_initialized_here = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_local_rank = node_local_rank(MPI_COMM_WORLD);
#else
  (void)argc, (void)argv;
#endif
}

MpiSession::~MpiSession() {
#if KBT_HAVE_MPI
  g_exchange.reset();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_initialized_here && !finalized) MPI_Finalize();
#endif
}

int world_rank() { return g_rank; }
int world_size() { return g_size; }

void add_device_argument(std::vector<char*>& kokkos_args) {
#if KBT_HAVE_MPI && defined(KOKKOS_ENABLE_CUDA)
  if (g_size <= 1) return;
  for (const char* a : kokkos_args)
    if (std::strncmp(a, "--kokkos-device-id", 18) == 0 || std::strncmp(a, "--kokkos-map-device-id-by", 25) == 0) return;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices <= 0) return;
  static std::string argument;  // outlives Kokkos' initialisation
  argument = "--kokkos-device-id=" + std::to_string(g_local_rank % devices);
  kokkos_args.push_back(argument.data());
#else
  (void)kokkos_args;
#endif
}

ChunkExchange* world_exchange() {
#if KBT_HAVE_MPI
  if (g_size <= 1) return nullptr;  // one process, launched by mpirun or not
  if (!g_exchange) g_exchange = std::make_unique<MpiExchange>(MPI_COMM_WORLD);
  return g_exchange.get();
#else
  return nullptr;
#endif
}

void abort_other_ranks(const std::string& message, int exit_code) {
#if KBT_HAVE_MPI
  if (g_size <= 1) return;
  std::fprintf(stderr, "%s\n", rank_failure_line(g_rank, g_size, message).c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, exit_code);
#else
  (void)message, (void)exit_code;
#endif
}

}  // namespace kbt::cli
