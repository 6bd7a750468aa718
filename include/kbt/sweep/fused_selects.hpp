#pragma once
// Compare-selects fused by the sweep kernel (docs/kernels.md "Fused
// compare-selects"): a streamed comparison whose only reader is the condition
// of a streamed `where` is evaluated inside that `where`'s loop over a block,
// never stored. Each value is still the composition of the two ops, so the
// bits are the same; what goes is a loop, a store and a load per bar.

#include <kbt/lang/program.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <vector>

namespace kbt {

// Per register: true for a streamed comparison (lt, le, gt, ge, eq; not ne,
// whose fused loop GCC 12.2 cannot vectorise without an internal error) that
// the kernel can evaluate inside its reader: it is read exactly once, as the
// condition of a streamed `where`, and is no strategy output or expression.
std::vector<bool> fusable_compares(const Program& program, const SweepPlan& plan);

}  // namespace kbt
