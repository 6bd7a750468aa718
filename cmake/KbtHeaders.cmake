# Every header kbt installs, relative to include/ (public ones first, area by
# area; detail/ folders hold internals that public templates include). The
# install rule and the header self-containment test read this list, and the
# configure step refuses a header on disk that is missing here (or the
# reverse), so that none is forgotten.
set(KBT_HEADERS
  kbt/kbt.hpp
  kbt/calibration/calibration.hpp
  kbt/calibration/calibration_workloads.hpp
  kbt/config/combo_rows.hpp
  kbt/config/config_loader.hpp
  kbt/config/param_grid.hpp
  kbt/config/run_config.hpp
  kbt/core/configuration.hpp
  kbt/core/atomic_output.hpp
  kbt/core/detail/kokkos_compat.hpp
  kbt/core/detail/portable_math.hpp
  kbt/core/detail/scalar_math.hpp
  kbt/core/detail/thread_binding.hpp
  kbt/core/detail/upload.hpp
  kbt/core/error.hpp
  kbt/core/execution_spaces.hpp
  kbt/core/source_text.hpp
  kbt/data/bar_data.hpp
  kbt/data/bar_data_views.hpp
  kbt/data/csv_dialect.hpp
  kbt/data/data_digest.hpp
  kbt/data/data_io.hpp
  kbt/data/external_data.hpp
  kbt/data/symbol_bars.hpp
  kbt/data/time_format.hpp
  kbt/data/time_zone.hpp
  kbt/job/sweep_job.hpp
  kbt/kernels/detail/cross_section_fold.hpp
  kbt/kernels/detail/cross_section_ops.hpp
  kbt/kernels/detail/fold_inputs.hpp
  kbt/kernels/detail/fold_task.hpp
  kbt/kernels/detail/per_bar_fold.hpp
  kbt/kernels/detail/shared_start_sums.hpp
  kbt/kernels/detail/sorted_counts.hpp
  kbt/kernels/detail/recursive_fold.hpp
  kbt/kernels/detail/recursive_ops.hpp
  kbt/kernels/detail/rolling_extremum.hpp
  kbt/kernels/detail/window_ops.hpp
  kbt/kernels/fold_hoister.hpp
  kbt/kernels/fold_request.hpp
  kbt/kernels/hoisting_plan.hpp
  kbt/kernels/kernels.hpp
  kbt/label/detail/triple_barrier_kernel.hpp
  kbt/label/label_job.hpp
  kbt/label/triple_barrier.hpp
  kbt/lang/ast.hpp
  kbt/lang/compiler.hpp
  kbt/lang/diagnostics.hpp
  kbt/lang/op_table.hpp
  kbt/lang/parser.hpp
  kbt/lang/program.hpp
  kbt/lang/scalar_ops.hpp
  kbt/lang/strategy_outputs.hpp
  kbt/metrics/detail/return_moments.hpp
  kbt/metrics/metric_set.hpp
  kbt/metrics/metrics.hpp
  kbt/metrics/metrics_accumulator.hpp
  kbt/metrics/metrics_basis.hpp
  kbt/output/checkpoint.hpp
  kbt/output/labels.hpp
  kbt/output/result_rows.hpp
  kbt/output/results.hpp
  kbt/output/simulate_results.hpp
  kbt/output/run_lock.hpp
  kbt/reference/evaluator.hpp
  kbt/reference/simulator.hpp
  kbt/report/backtest_report.hpp
  kbt/report/backtest_stats.hpp
  kbt/report/heatmap_grid.hpp
  kbt/simulate/action_simulation.hpp
  kbt/simulate/action_simulator.hpp
  kbt/simulate/detail/action_functors.hpp
  kbt/simulate/simulate_job.hpp
  kbt/simulation/portfolio_rules.hpp
  kbt/simulation/portfolio_step.hpp
  kbt/simulation/portfolio_upload.hpp
  kbt/simulation/resolved_simulation.hpp
  kbt/simulation/setting_units.hpp
  kbt/sweep/backtest.hpp
  kbt/sweep/detail/block_evaluator.hpp
  kbt/sweep/detail/cache_lines.hpp
  kbt/sweep/detail/compared_select.hpp
  kbt/sweep/detail/functor_setup.hpp
  kbt/sweep/detail/hoist_tiling.hpp
  kbt/sweep/detail/hoisted_rows.hpp
  kbt/sweep/detail/kernel_sweeper.hpp
  kbt/sweep/detail/sweep_functor.hpp
  kbt/sweep/detail/top_k_keys.hpp
  kbt/sweep/detail/window_sweep.hpp
  kbt/sweep/chunk_exchange.hpp
  kbt/sweep/device_top_k.hpp
  kbt/sweep/fused_selects.hpp
  kbt/sweep/kernel_sweep_options.hpp
  kbt/sweep/kernel_sweep_runner.hpp
  kbt/sweep/prepared_sweep.hpp
  kbt/sweep/progress.hpp
  kbt/sweep/run_sweep.hpp
  kbt/sweep/shared_pieces.hpp
  kbt/sweep/space_sweep.hpp
  kbt/sweep/strategy_warnings.hpp
  kbt/sweep/sweep_driver.hpp
  kbt/sweep/sweep_engine.hpp
  kbt/sweep/sweep_kernel.hpp
  kbt/sweep/sweep_plan.hpp
  kbt/sweep/top_k.hpp
  kbt/validation/correlation.hpp
  kbt/validation/pbo.hpp
  kbt/validation/period_returns.hpp
  kbt/validation/sharpe_statistics.hpp
  kbt/validation/validation.hpp
  kbt/verify/verify.hpp
)

# With MPI only (they include mpi.h): installed and checked then.
set(KBT_MPI_HEADERS kbt/mpi/mpi_exchange.hpp)
if(KBT_ENABLE_MPI)
  list(APPEND KBT_HEADERS ${KBT_MPI_HEADERS})
endif()

file(GLOB_RECURSE _kbt_headers_on_disk RELATIVE ${PROJECT_SOURCE_DIR}/include
  CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/kbt/*.hpp)
foreach(_header IN LISTS _kbt_headers_on_disk)
  if(NOT _header IN_LIST KBT_HEADERS AND NOT _header IN_LIST KBT_MPI_HEADERS)
    message(FATAL_ERROR "kbt: include/${_header} is not listed in cmake/KbtHeaders.cmake")
  endif()
endforeach()
foreach(_header IN LISTS KBT_HEADERS)
  if(NOT _header IN_LIST _kbt_headers_on_disk)
    message(FATAL_ERROR "kbt: cmake/KbtHeaders.cmake lists include/${_header}, which does not exist")
  endif()
endforeach()
