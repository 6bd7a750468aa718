// fork + pipe around one read. The child runs only the read (libhdf5, the
// validation, malloc) and leaves with _exit: no atexit handlers, no Kokkos or
// HDF5 finalisation, no stdio flush, so it neither touches the parent's devices
// nor duplicates its buffered output. Kokkos/OpenMP threads of the parent do
// not exist in the child, and kbt makes no HDF5 call from another thread, so
// no lock the read needs can be held at the fork.

#include "data/isolated_read.hpp"

#include <kbt/core/error.hpp>

#include <atomic>
#include <map>
#include <vector>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data/market_data_wire.hpp"

namespace kbt {
namespace {

Hdf5ReadIsolation initial_isolation() {
  const char* env = std::getenv("KBT_HDF5_IN_PROCESS");
  return env && std::strcmp(env, "1") == 0 ? Hdf5ReadIsolation::in_process : Hdf5ReadIsolation::child_process;
}

std::atomic<Hdf5ReadIsolation>& isolation_setting() {
  static std::atomic<Hdf5ReadIsolation> setting{initial_isolation()};
  return setting;
}

std::string signal_text(int sig) {
  const char* name = sig == SIGSEGV ? "SIGSEGV"
                     : sig == SIGFPE ? "SIGFPE"
                     : sig == SIGBUS ? "SIGBUS"
                     : sig == SIGABRT ? "SIGABRT"
                     : sig == SIGILL ? "SIGILL"
                     : sig == SIGKILL ? "SIGKILL, e.g. out of memory"
                                      : nullptr;
  return name ? std::string(name) : "signal " + std::to_string(sig);
}

// In process: the parts make up one MarketData.
class CollectingSink final : public detail::MarketDataSink {
 public:
  void bars_axis(std::vector<std::int64_t> timestamps, std::vector<std::string> symbols,
                 std::vector<std::string> venues) override {
    data.bars.timestamps = std::move(timestamps);
    data.bars.symbols = std::move(symbols);
    data.bars.venues = std::move(venues);
  }
  void column(const std::string& name, std::vector<double> values) override {
    data.bars.columns[name] = std::move(values);
  }
  void exo(std::map<std::string, ExoSeries> series) override { data.exo = std::move(series); }
  MarketData data;
};

// In the reader process: each part goes down the pipe at once, then is freed.
class PipeSink final : public detail::MarketDataSink {
 public:
  explicit PipeSink(detail::WireWriter& out) : out_(out) {}
  void bars_axis(std::vector<std::int64_t> timestamps, std::vector<std::string> symbols,
                 std::vector<std::string> venues) override {
    out_.bars_axis(timestamps, symbols, venues);
  }
  void column(const std::string& name, std::vector<double> values) override { out_.column(name, values); }
  void exo(std::map<std::string, ExoSeries> series) override { out_.exo(series); }

 private:
  detail::WireWriter& out_;
};

// The child's side: read, send, leave. Never returns.
[[noreturn]] void child_main(int fd, const std::string& path,
                             const std::function<void(detail::MarketDataSink&)>& read) {
  // Diagnostics of a crashing child (a sanitizer report, a libhdf5 message)
  // are not the user's: the parent reports the one error that matters.
  const int null_fd = ::open("/dev/null", O_WRONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDERR_FILENO);
  detail::WireWriter out(fd);
  try {
    PipeSink sink(out);
    read(sink);
    out.end();
  } catch (const Error& e) {
    out.error(e.category(), e.what());
  } catch (const std::bad_alloc&) {
    out.error(ErrorCategory::limit, path + ": out of memory while reading the file");
  } catch (const std::exception& e) {
    out.error(ErrorCategory::internal, std::string("unexpected exception: ") + e.what());
  } catch (...) {
    out.error(ErrorCategory::internal, "unexpected non-standard exception");
  }
  ::_exit(out.ok() ? 0 : 3);
}

// Waits for `pid` (retrying on EINTR); returns its wait status.
int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

}  // namespace

void set_hdf5_read_isolation(Hdf5ReadIsolation isolation) { isolation_setting().store(isolation); }
Hdf5ReadIsolation hdf5_read_isolation() { return isolation_setting().load(); }

namespace detail {

MarketData read_isolated(const std::string& path, const std::function<void(MarketDataSink&)>& read) {
  if (hdf5_read_isolation() == Hdf5ReadIsolation::in_process) {
    CollectingSink sink;
    read(sink);
    return std::move(sink.data);
  }
  int fds[2];
  if (::pipe(fds) != 0)
    throw Error(ErrorCategory::io, path + ": cannot create a pipe for the reader process: " + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(ErrorCategory::io, path + ": cannot start the reader process: " + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fds[1], path, read);
  }
  ::close(fds[1]);
  WireMessage message;
  try {
    message = read_wire_message(fds[0]);
  } catch (...) {  // e.g. bad_alloc for the data: stop the child, then rethrow
    ::close(fds[0]);
    ::kill(pid, SIGKILL);
    reap(pid);
    throw;
  }
  ::close(fds[0]);
  const int status = reap(pid);
  if (status != -1 && WIFSIGNALED(status))
    throw Error(ErrorCategory::data_format,
                path + ": the HDF5 library crashed reading this file (" + signal_text(WTERMSIG(status)) +
                    ", in kbt's reader process): the file is corrupt or not a valid HDF5 file");
  // status -1: the child was reaped elsewhere (SIGCHLD ignored by the host
  // program); a complete message is then its whole answer.
  if (!message.complete || (status != -1 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)))
    throw Error(ErrorCategory::internal, path + ": the reader process ended without a complete answer (exit status " +
                                             std::to_string(status == -1 ? -1 : WEXITSTATUS(status)) + ")");
  if (message.is_error) throw Error(message.category, message.message);
  return std::move(message.data);
}

}  // namespace detail
}  // namespace kbt
