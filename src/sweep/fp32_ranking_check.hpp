#pragma once
// The fp32 ranking check of a run (docs/sweep.md "Precision"): a deterministic
// sample of the combos re-run in fp64 on the same device, and how well the
// fp32 objective ranks them (Spearman correlation, top-K overlap).

#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/output/results.hpp>
#include <kbt/sweep/kernel_sweep_options.hpp>
#include <kbt/sweep/prepared_sweep.hpp>

#include <string>
#include <vector>

namespace kbt::detail {

// `rows32`: the run's rows, with fp32 metrics. Sets fp32_spearman_vs_fp64,
// fp32_topk_overlap and fp32_check_sample in `profile`.
void check_fp32_ranking(const PreparedSweep& sweep, const BarData& bars, const std::string& device,
                        const KernelSweepOptions& options, const Objective& objective, const ResultRows& rows32,
                        RunProfile& profile);

}  // namespace kbt::detail
