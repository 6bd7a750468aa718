#pragma once
// Runs a recursive computation on a thread of its own with a stack of a known
// size, so that the depth limits of the parser and the compiler protect the
// process whatever the caller's stack is: a Kokkos/OpenMP worker of a host
// code may have a few MiB, a sanitizer build uses several times more stack per
// frame than an optimised one. (Clang runs its front end the same way.)

#include <cstddef>
#include <exception>
#include <functional>

namespace kbt::detail {

// Enough for every limit kbt enforces (max_expression_depth levels per
// expression, max_lowering_depth through signals) with room for an
// AddressSanitizer build; only the pages touched are ever committed.
inline constexpr std::size_t large_stack_bytes = std::size_t(256) << 20;

// Calls `work` on a thread with a `stack_bytes` stack and waits for it;
// whatever `work` throws is rethrown in the caller.
void call_with_large_stack(const std::function<void()>& work, std::size_t stack_bytes = large_stack_bytes);

}  // namespace kbt::detail
