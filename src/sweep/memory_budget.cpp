// Host memory a run may still use: the default sweep budget is drawn from it
// (kernel_sweep_runner.hpp), and prepare_sweep refuses a grid that would not fit.

#include <kbt/sweep/kernel_sweep_runner.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace kbt {

namespace {

// What RLIMIT_AS (ulimit -v) still allows this process to map, or SIZE_MAX.
std::size_t address_space_left() {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  unsigned long long vm_kib = 0;
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmSize: %llu kB", &vm_kib) == 1) break;
    std::fclose(f);
  }
  const std::size_t used = static_cast<std::size_t>(vm_kib) * 1024;
  const auto cap = static_cast<std::size_t>(limit.rlim_cur);
  return cap > used ? cap - used : 0;
}

std::size_t physical_available() {
  // Linux: MemAvailable counts reclaimable cache, what a new allocation can get.
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
        found = true;
        break;
      }
    std::fclose(f);
    if (found) return static_cast<std::size_t>(kib) * 1024;
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
  return std::size_t(4) << 30;  // unknown: assume a small node
}

}  // namespace

std::size_t host_available_memory_bytes() { return std::min(physical_available(), address_space_left()); }

}  // namespace kbt
