#include <kbt/output/run_lock.hpp>
#include <kbt/core/error.hpp>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kbt {
namespace {

std::string holder_description() {
  char host[256] = "unknown host";
  ::gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  char when[32] = "";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (::gmtime_r(&now, &utc)) std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return "pid " + std::to_string(::getpid()) + " on " + host + ", started " + when;
}

std::string read_all(int fd) {
  std::string text;
  char buf[512];
  ssize_t k;
  off_t at = 0;
  while ((k = ::pread(fd, buf, sizeof buf, at)) > 0) text.append(buf, static_cast<std::size_t>(k)), at += k;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

}  // namespace

std::string RunLock::path_for(const std::string& results_path) { return results_path + ".lock"; }

RunLock::RunLock(const std::string& results_path) : path_(path_for(results_path)) {
  {
    const auto parent = std::filesystem::path(path_).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  // Retried when the file we locked was unlinked meanwhile by its previous
  // holder (then a third process may lock a new file of the same name).
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      throw Error(ErrorCategory::io, path_ + ": cannot create the run lock: " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      std::string holder = read_all(fd);
      ::close(fd);
      if (err != EWOULDBLOCK)
        throw Error(ErrorCategory::io, path_ + ": cannot take the run lock: " + std::strerror(err));
      if (holder.empty()) holder = "a process that has not written its name yet";
      throw Error(ErrorCategory::io, path_ + ": another kbt run of " + results_path + " is running (" + holder +
                                             "); wait for it to finish, or stop it first");
    }
    struct stat locked {}, named {};
    if (::fstat(fd, &locked) == 0 && ::stat(path_.c_str(), &named) == 0 && locked.st_ino == named.st_ino &&
        locked.st_dev == named.st_dev) {
      const std::string me = holder_description() + "\n";
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
        const int err = errno;
        ::close(fd);
        throw Error(ErrorCategory::io, path_ + ": cannot write the run lock: " + std::strerror(err));
      }
      fd_ = fd;
      return;
    }
    ::close(fd);  // that file was removed after we opened it: take the new one
  }
  throw Error(ErrorCategory::io, path_ + ": cannot take the run lock (the file keeps being replaced)");
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while still held: a waiter then sees another inode and retries
  ::close(fd_);
}

}  // namespace kbt
