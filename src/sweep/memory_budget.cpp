// Host memory the default sweep budget is drawn from (sweep_kernel.hpp).

#include <kbt/sweep/sweep_kernel.hpp>

#include <unistd.h>

#include <cstdio>

namespace kbt {

std::size_t host_available_memory_bytes() {
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

}  // namespace kbt
