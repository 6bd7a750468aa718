#pragma once
// One sweep among the ranks of an MPI communicator (docs/mpi.md), for host
// codes that run under MPI already and for `mpirun kbt run`: a ChunkExchange
// (sweep/chunk_exchange.hpp) over `comm`, handed to run_sweep_job or
// run_sweep. Only with KBT_ENABLE_MPI (kbt::mpi_compiled_in() says so).
//
//   kbt::MpiExchange exchange(MPI_COMM_WORLD);   // collective
//   kbt::SweepJobOptions options;
//   options.exchange = &exchange;
//   options.out = "results.h5";                  // written by rank 0
//   const kbt::SweepJobResult job = kbt::run_sweep_job(config, bars, options);

#include <mpi.h>

#include <kbt/sweep/chunk_exchange.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace kbt {

class MpiExchange final : public ChunkExchange {
 public:
  // Collective over `comm`, which is duplicated: kbt's messages never meet
  // the caller's. The chunk counter lives in an MPI window on rank 0.
  explicit MpiExchange(MPI_Comm comm);
  ~MpiExchange() override;  // collective
  MpiExchange(const MpiExchange&) = delete;
  MpiExchange& operator=(const MpiExchange&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void start() override;
  std::optional<std::size_t> claim(std::size_t n_chunks) override;
  void send(std::size_t chunk, std::vector<double>&& metrics) override;
  void finish_sends() override;
  std::optional<std::size_t> receive(bool wait, std::vector<double>& metrics) override;
  std::uint64_t broadcast(std::uint64_t value) override;
  void broadcast(std::vector<double>& values) override;
  std::vector<double> gather(double value) override;
  std::optional<Failure> agree(const std::optional<Failure>& failure) override;
  [[noreturn]] void abort(int exit_code) override;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  MPI_Win counter_window_ = MPI_WIN_NULL;
  std::int64_t* counter_ = nullptr;  // rank 0's counter (null elsewhere)
  struct InFlight {
    MPI_Request request = MPI_REQUEST_NULL;
    std::vector<double> payload;  // [chunk, metrics...]
  };
  std::deque<InFlight> sends_;
  void complete_sends(std::size_t keep);
};

// The rank of the calling process among those of `comm` on its node
// (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED): the device it takes.
int node_local_rank(MPI_Comm comm);

}  // namespace kbt
