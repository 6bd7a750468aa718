// MpiExchange (include/kbt/mpi/mpi_exchange.hpp): a shared counter by
// MPI_Fetch_and_op on rank 0's window, chunks to rank 0 by MPI_Isend.

#include <kbt/mpi/mpi_exchange.hpp>

#include <kbt/core/error.hpp>

#include <cstdlib>
#include <string>

namespace kbt {
namespace {

constexpr int kChunkTag = 7401;  // a finished chunk: [chunk index, metrics...]

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw Error(ErrorCategory::internal, std::string("MPI: ") + what + " failed");
}

}  // namespace

MpiExchange::MpiExchange(MPI_Comm comm) {
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  void* base = nullptr;
  const MPI_Aint bytes = rank_ == 0 ? static_cast<MPI_Aint>(sizeof(std::int64_t)) : 0;
  check(MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, comm_, &base, &counter_window_),
        "MPI_Win_allocate");
  if (rank_ == 0) {
    counter_ = static_cast<std::int64_t*>(base);
    *counter_ = 0;
  }
  // One passive-target epoch for the exchange's life: claims are atomic
  // fetch-and-adds, flushed at once.
  check(MPI_Win_lock_all(0, counter_window_), "MPI_Win_lock_all");
}

MpiExchange::~MpiExchange() {
  complete_sends(0);
  MPI_Win_unlock_all(counter_window_);
  MPI_Win_free(&counter_window_);
  MPI_Comm_free(&comm_);
}

void MpiExchange::start() {
  // Everyone has stopped claiming (the previous sweep's finish_sends), so
  // the root may reset its counter before anyone claims again.
  MPI_Barrier(comm_);
  if (rank_ == 0) {
    const std::int64_t zero = 0;
    MPI_Accumulate(&zero, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, MPI_REPLACE, counter_window_);
    MPI_Win_flush(0, counter_window_);
  }
  MPI_Barrier(comm_);
}

std::optional<std::size_t> MpiExchange::claim(std::size_t n_chunks) {
  const std::int64_t one = 1;
  std::int64_t got = 0;
  check(MPI_Fetch_and_op(&one, &got, MPI_INT64_T, 0, 0, MPI_SUM, counter_window_), "MPI_Fetch_and_op");
  check(MPI_Win_flush(0, counter_window_), "MPI_Win_flush");
  if (got < 0 || static_cast<std::size_t>(got) >= n_chunks) return std::nullopt;
  return static_cast<std::size_t>(got);
}

void MpiExchange::complete_sends(std::size_t keep) {
  while (sends_.size() > keep) {
    MPI_Wait(&sends_.front().request, MPI_STATUS_IGNORE);
    sends_.pop_front();
  }
  // Drop the finished ones at the front without waiting.
  while (!sends_.empty()) {
    int done = 0;
    MPI_Test(&sends_.front().request, &done, MPI_STATUS_IGNORE);
    if (!done) break;
    sends_.pop_front();
  }
}

void MpiExchange::send(std::size_t chunk, std::vector<double>&& metrics) {
  // At most a few chunks in flight: the root takes them between its own.
  complete_sends(2);
  InFlight f;
  f.payload.reserve(metrics.size() + 1);
  f.payload.push_back(static_cast<double>(chunk));  // exact: chunks < 2^53
  f.payload.insert(f.payload.end(), metrics.begin(), metrics.end());
  metrics.clear();
  sends_.push_back(std::move(f));
  InFlight& in_flight = sends_.back();
  check(MPI_Isend(in_flight.payload.data(), static_cast<int>(in_flight.payload.size()), MPI_DOUBLE, 0, kChunkTag,
                  comm_, &in_flight.request),
        "MPI_Isend");
}

void MpiExchange::finish_sends() {
  complete_sends(0);
  MPI_Barrier(comm_);
}

std::optional<std::size_t> MpiExchange::receive(bool wait, std::vector<double>& metrics) {
  MPI_Status status;
  if (wait) {
    check(MPI_Probe(MPI_ANY_SOURCE, kChunkTag, comm_, &status), "MPI_Probe");
  } else {
    int arrived = 0;
    check(MPI_Iprobe(MPI_ANY_SOURCE, kChunkTag, comm_, &arrived, &status), "MPI_Iprobe");
    if (!arrived) return std::nullopt;
  }
  int count = 0;
  MPI_Get_count(&status, MPI_DOUBLE, &count);
  if (count < 1) throw Error(ErrorCategory::internal, "MPI: an empty chunk message");
  std::vector<double> payload(static_cast<std::size_t>(count));
  check(MPI_Recv(payload.data(), count, MPI_DOUBLE, status.MPI_SOURCE, kChunkTag, comm_, MPI_STATUS_IGNORE),
        "MPI_Recv");
  metrics.assign(payload.begin() + 1, payload.end());
  return static_cast<std::size_t>(payload[0]);
}

std::uint64_t MpiExchange::broadcast(std::uint64_t value) {
  MPI_Bcast(&value, 1, MPI_UINT64_T, 0, comm_);
  return value;
}

void MpiExchange::broadcast(std::vector<double>& values) {
  std::uint64_t n = broadcast(static_cast<std::uint64_t>(values.size()));
  values.resize(static_cast<std::size_t>(n));
  if (n > 0) MPI_Bcast(values.data(), static_cast<int>(n), MPI_DOUBLE, 0, comm_);
}

std::vector<double> MpiExchange::gather(double value) {
  std::vector<double> all(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  MPI_Gather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, comm_);
  return all;
}

std::optional<ChunkExchange::Failure> MpiExchange::agree(const std::optional<Failure>& failure) {
  int mine = failure ? rank_ : size_, lowest = size_;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm_);
  if (lowest == size_) return std::nullopt;
  // The lowest failing rank's category and message, to everyone.
  int category = failure && lowest == rank_ ? static_cast<int>(failure->category) : 0;
  std::string message = failure && lowest == rank_ ? failure->message : std::string();
  int length = static_cast<int>(message.size());
  MPI_Bcast(&category, 1, MPI_INT, lowest, comm_);
  MPI_Bcast(&length, 1, MPI_INT, lowest, comm_);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, lowest, comm_);
  return Failure{lowest, static_cast<ErrorCategory>(category), message};
}

void MpiExchange::abort(int exit_code) {
  MPI_Abort(comm_, exit_code);
  std::abort();  // MPI_Abort does not return
}

int node_local_rank(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  int rank = 0;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

}  // namespace kbt
