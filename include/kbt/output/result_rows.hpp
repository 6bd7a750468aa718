#pragma once
// The rows of a sweep, one per simulated combo (its combo id, its params, its
// metrics), read a range at a time wherever they live: in memory (the C++
// API, tests), in the checkpoint of a running sweep, or in a results file.
// Whatever reads every row (a heatmap, `kbt show --sort`, `kbt verify`) reads
// them block by block, so that no process holds a 10^8-row sweep in memory
// (docs/results.md "Memory").

#include <kbt/metrics/metric_set.hpp>
#include <kbt/metrics/metrics.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

// Some rows of a sweep with everything about each, in a chosen order.
struct RowTable {
  std::vector<std::uint64_t> rows;       // [n] the rows' positions in the sweep
  std::vector<std::uint64_t> combo_ids;  // [n]
  std::vector<double> params;            // [n][n_params] row-major
  std::vector<double> metrics;           // [n][n_metrics] row-major
  std::size_t n_params = 0;
  // The metrics these rows hold; the others are NaN because they were not
  // computed (docs/metrics.md "Metric sets").
  MetricMask metric_mask = all_metrics_mask;

  std::size_t size() const { return rows.size(); }
  const double* params_of(std::size_t i) const { return params.data() + i * n_params; }
  const double* metrics_of(std::size_t i) const { return metrics.data() + i * n_metrics; }
  void append(std::uint64_t row, std::uint64_t combo_id, const double* row_params, const double* row_metrics);
  // The first k rows (all when k >= size()).
  RowTable first(std::size_t k) const;
};

class ResultRows {
 public:
  virtual ~ResultRows() = default;
  virtual std::uint64_t size() const = 0;
  virtual const std::vector<std::string>& param_names() const = 0;
  std::size_t n_params() const { return param_names().size(); }
  // The metrics every row holds (the sweep's metric set); the others read as NaN.
  virtual MetricMask metric_mask() const = 0;
  // Rows [first, first + count): ids [count], params [count][n_params()],
  // metrics [count][n_metrics], row-major; a null pointer skips that part.
  virtual void read(std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params,
                    double* metrics) const = 0;
};

// Rows held in memory.
class MemoryRows final : public ResultRows {
 public:
  // Metrics outside `mask` must be NaN.
  MemoryRows(std::vector<std::string> param_names, std::vector<std::uint64_t> combo_ids, std::vector<double> params,
             std::vector<double> metrics, MetricMask mask = all_metrics_mask);
  std::uint64_t size() const override { return combo_ids_.size(); }
  const std::vector<std::string>& param_names() const override { return param_names_; }
  MetricMask metric_mask() const override { return mask_; }
  void read(std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params,
            double* metrics) const override;
  // The storage itself, for views that do not copy it (the Python module).
  const std::vector<std::uint64_t>& combo_ids() const { return combo_ids_; }
  const std::vector<double>& params() const { return params_; }
  const std::vector<double>& metrics() const { return metrics_; }

 private:
  std::vector<std::string> param_names_;
  std::vector<std::uint64_t> combo_ids_;
  std::vector<double> params_, metrics_;
  MetricMask mask_;
};

// kbt::Error(config) unless every row holds `metric`: names the metrics they
// hold and the setting that adds more (sweep.metrics). `what`: the option.
void require_metric(const ResultRows& rows, const std::string& metric, const std::string& what);

// Rows a block at a time (at most `block` rows): visit(first, count, ids,
// params, metrics), each part null unless asked for.
struct RowParts {
  bool ids = true, params = true, metrics = true;
};
void for_each_row_block(const ResultRows& rows, std::size_t block, RowParts parts,
                        const std::function<void(std::uint64_t first, std::uint64_t count, const std::uint64_t* ids,
                                                 const double* params, const double* metrics)>& visit);

// The rows at `positions` (any order, repeats allowed), in that order.
RowTable read_rows(const ResultRows& rows, const std::vector<std::uint64_t>& positions);
// Every row: for small sweeps and tests.
RowTable read_all_rows(const ResultRows& rows);

// The row of combo `combo_id` (rows hold ascending ids), or nullopt.
std::optional<std::uint64_t> find_combo_row(const ResultRows& rows, std::uint64_t combo_id);

}  // namespace kbt
