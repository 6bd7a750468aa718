#pragma once
// Everything of kbt's public C++ API in one include (docs/api.md). Each area's
// headers can also be included on their own; detail/ headers are internals.

#include <kbt/core/atomic_output.hpp>
#include <kbt/core/configuration.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/core/source_text.hpp>
#include <kbt/core/version.hpp>

#include <kbt/config/combo_rows.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/config/run_config.hpp>

#include <kbt/data/bar_data.hpp>
#include <kbt/data/bar_data_views.hpp>
#include <kbt/data/data_digest.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/data/external_data.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/data/time_zone.hpp>

#include <kbt/job/sweep_job.hpp>

#include <kbt/label/label_job.hpp>
#include <kbt/label/triple_barrier.hpp>

#include <kbt/lang/ast.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/lang/diagnostics.hpp>
#include <kbt/lang/op_table.hpp>
#include <kbt/lang/parser.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/lang/scalar_ops.hpp>
#include <kbt/lang/strategy_outputs.hpp>

#include <kbt/metrics/metric_set.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/metrics/metrics_accumulator.hpp>

#include <kbt/simulate/action_simulation.hpp>
#include <kbt/simulate/action_simulator.hpp>
#include <kbt/simulate/simulate_job.hpp>
#include <kbt/simulation/portfolio_rules.hpp>
#include <kbt/simulation/portfolio_step.hpp>
#include <kbt/simulation/resolved_simulation.hpp>

#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>

#include <kbt/report/backtest_report.hpp>
#include <kbt/report/backtest_stats.hpp>
#include <kbt/report/heatmap_grid.hpp>

#include <kbt/kernels/fold_hoister.hpp>
#include <kbt/kernels/fold_request.hpp>
#include <kbt/kernels/hoisting_plan.hpp>

#include <kbt/sweep/backtest.hpp>
#include <kbt/sweep/device_top_k.hpp>
#include <kbt/sweep/kernel_sweep_options.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/progress.hpp>
#include <kbt/sweep/chunk_exchange.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/sweep/space_sweep.hpp>
#include <kbt/sweep/strategy_warnings.hpp>
#include <kbt/sweep/sweep_driver.hpp>
#include <kbt/sweep/sweep_engine.hpp>
#include <kbt/sweep/sweep_kernel.hpp>
#include <kbt/sweep/sweep_plan.hpp>
#include <kbt/sweep/top_k.hpp>

#include <kbt/calibration/calibration.hpp>
#include <kbt/calibration/calibration_workloads.hpp>

#include <kbt/output/checkpoint.hpp>
#include <kbt/output/labels.hpp>
#include <kbt/output/result_rows.hpp>
#include <kbt/output/results.hpp>
#include <kbt/output/simulate_results.hpp>
#include <kbt/output/run_lock.hpp>

#include <kbt/validation/correlation.hpp>
#include <kbt/validation/pbo.hpp>
#include <kbt/validation/period_returns.hpp>
#include <kbt/validation/sharpe_statistics.hpp>
#include <kbt/validation/validation.hpp>
#include <kbt/verify/verify.hpp>

// MPI (docs/mpi.md): with KBT_ENABLE_MPI only, as it includes mpi.h.
#if KBT_HAVE_MPI
#include <kbt/mpi/mpi_exchange.hpp>
#endif
