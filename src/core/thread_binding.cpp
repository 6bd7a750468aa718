#include <kbt/core/detail/thread_binding.hpp>

#include <cstdlib>

namespace kbt::detail {

void leave_threads_unbound_unless_chosen() {
  if (std::getenv("OMP_PROC_BIND") == nullptr && std::getenv("OMP_PLACES") == nullptr)
    ::setenv("OMP_PROC_BIND", "false", 0);
}

}  // namespace kbt::detail
