#pragma once
// The reference evaluator (docs/testing.md): a deliberately simple, sequential, host,
// double-precision interpreter of a compiled Program, one combo at a time. Each
// instruction is evaluated over whole columns (all symbols x all bars) with plain
// loops, exactly as docs/language.md defines every op. It is the source of truth
// that every kernel is tested against.

#include <kbt/data/bar_data.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/lang/strategy_outputs.hpp>

#include <cstddef>
#include <memory>
#include <vector>

namespace kbt {

// Optional, for sweeps: shares across the combos of one (program, data) pair the
// series that are the same for every combo (registers that depend on no param) or
// depend on the combo only through a window param (Program::hoisted, one entry per
// window value), so that each is computed once. The evaluator's own code computes
// every cached value, so results are bit-identical with and without the cache.
// Thread-safe: one cache may be shared by threads evaluating different combos.
// Once `max_bytes` of series are held, further series are computed but not kept.
class ReferenceSeriesCache {
 public:
  explicit ReferenceSeriesCache(std::size_t max_bytes = std::size_t(1) << 30);
  ~ReferenceSeriesCache();
  ReferenceSeriesCache(const ReferenceSeriesCache&) = delete;
  ReferenceSeriesCache& operator=(const ReferenceSeriesCache&) = delete;

  std::size_t bytes_held() const;
  std::size_t hits() const;

  struct Impl;

 private:
  friend class ReferenceCacheAccess;
  std::unique_ptr<Impl> impl_;
};

// Target positions or entry/exit booleans of one combo. `param_values` holds
// program.n_params() values in Program::param_names order.
// `cache` (optional) must be used with one program and one data set only.
StrategyOutputs evaluate_strategy_reference(const Program& program, const BarData& data,
                                            const double* param_values,
                                            ReferenceSeriesCache* cache = nullptr);

// True when every constraint is true (an unknown constraint counts as false).
// Needs no data: constraints depend on params only.
bool constraints_hold(const Program& program, const double* param_values);

// The value of every scalar register for these params (NaN in the slots of
// series registers). Needs no data.
std::vector<double> scalar_registers_reference(const Program& program, const double* param_values);

// Program::expression of a compile_expression() program, [n_sym * n_bars]
// symbol-major; a scalar expression is repeated at every bar.
std::vector<double> evaluate_expression_reference(const Program& program, const BarData& data,
                                                  const double* param_values);

// Every register's values: scalar registers hold 1 value, series registers
// n_sym * n_bars(frame) values, symbol-major. For parity tests of hoisted series.
std::vector<std::vector<double>> evaluate_registers_reference(const Program& program,
                                                              const BarData& data,
                                                              const double* param_values);

// The scalar registers and the series that depend on no param; a series that
// depends on params is left empty. What a sweep plan needs (its materialized
// series and the hoisted folds' inputs) without any combo's own series.
std::vector<std::vector<double>> evaluate_param_free_registers_reference(const Program& program,
                                                                         const BarData& data,
                                                                         const double* param_values);

// The base bars of a higher timeframe (docs/language.md "htf"): htf bar j covers base bars
// [begin[j], end[j]); visible[b] is the htf bar exposed at base bar b (the last
// completed one) or -1 when none is complete yet.
struct TimeframeGrid {
  std::vector<std::size_t> begin, end;
  std::vector<long> visible;
};
TimeframeGrid timeframe_grid(const std::vector<std::int64_t>& timestamps, std::int64_t tf_ns);

}  // namespace kbt
