#pragma once
// HDF5 pieces of the results layout (docs/results.md), shared by the results
// writer, the checkpoint (which becomes the results file when the run
// finishes) and the reader. Internal to src/output/.
//
// Row datasets (/combo_id, /params/<name>, /metrics/<name>) are contiguous,
// allocated when created and written a block of rows at a time, so that a
// run never holds every row in memory and a checkpoint commit writes raw
// data only (no metadata changes until combos_done is rewritten).

#include <hdf5.h>
#include <kbt/output/result_rows.hpp>
#include <kbt/output/results.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/hdf5_support.hpp"

namespace kbt::detail {

// A numeric dataset written whole (write_numeric_dataset, deflate level 1)
// with its `description` and `unit` attributes: the label and simulate files.
// The element type is named by an enum, not by HDF5's type macros: those expand
// to comma expressions that nvcc's front end misreads inside a braced list.
enum class ColumnType { int8, int64, float64 };
struct DescribedColumn {
  const char* name;
  ColumnType type;
  const void* data;
  const char *description, *unit;
};
void write_described(hid_t file, const std::vector<hsize_t>& dims, const DescribedColumn& c, const std::string& path);

// The end of a label or simulate file: /config, /profile, the root attributes
// kbt_version and job, and last complete = 1.
void finish_job_file(hid_t file, const char* job, const std::string& config_yaml, const RunProfile& profile,
                     const std::string& path);

// Creates the folder `path` goes into (kbt::Error(io) when it cannot).
void ensure_parent_directory(const std::string& path);

// Errors while writing are kbt::Error(io) "<path>: cannot write <what>".
void check_write(herr_t status, const std::string& what, const std::string& path);
hid_t checked_create(hid_t id, const std::string& what, const std::string& path);

H5Id make_group(hid_t parent, const std::string& name, const std::string& path);
void write_string(hid_t parent, const std::string& name, const std::string& value, const std::string& path,
                  bool as_attribute);
void write_number_attribute(hid_t parent, const std::string& name, double value, const std::string& path);
// Writes `value` into an existing float64 or uint64 attribute, or creates it.
void set_number_attribute(hid_t parent, const std::string& name, double value, const std::string& path);
void write_u64_attribute(hid_t parent, const std::string& name, std::uint64_t value, const std::string& path);
void set_u64_attribute(hid_t parent, const std::string& name, std::uint64_t value, const std::string& path);

// Reading (kbt::Error(data_format) naming the file and the object).
// Sizes are checked first (check_declared_bytes, data/hdf5_support.hpp).
bool has_attribute(hid_t obj, const std::string& name);
std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& path);
double read_number_attribute(hid_t obj, const std::string& name, const std::string& path);
std::uint64_t read_u64_attribute(hid_t obj, const std::string& name, const std::string& path);
std::string read_string_dataset(hid_t file, const std::string& name, const std::string& path);

// A small 1-D dataset written whole (chunked and deflated from 4096 rows).
void write_small_1d(hid_t parent, const std::string& name, hid_t mem_type, const void* data, std::size_t n,
                    const std::string& path);
template <class T>
std::vector<T> read_small_1d(hid_t file, const std::string& name, hid_t mem_type, const std::string& path);

// Rows [first, first + count) of the 1-D dataset `name` (any layout).
void transfer_rows(hid_t file, const std::string& name, hid_t mem_type, std::uint64_t first, std::uint64_t count,
                   void* buffer, bool write, const std::string& path);

// Counts (metric_is_count) and integer params are int64 in the file, every
// other value float64; readers read all of them as double (HDF5 converts).
// `values` as int64, kbt::Error(internal) naming `what` when one is not a
// whole number (that would lose it).
std::vector<std::int64_t> whole_numbers(const double* values, std::size_t n, const std::string& what,
                                        const std::string& path);
// A small column of metric `m` / of a param, typed as above.
void write_metric_column(hid_t parent, std::size_t m, const std::vector<double>& values, const std::string& path);
void write_param_column(hid_t parent, const std::string& name, const std::vector<double>& values, bool integer,
                        const std::string& path);
// Per name, whether /params/<name> of the file holding `obj` is int64.
std::vector<bool> integer_params_of_file(hid_t obj, const std::vector<std::string>& names);

// Creates the row datasets for `n` rows and writes their combo ids and params,
// `block` rows at a time from fill(first, count, ids, params); /metrics/<name>
// (the metrics of `mask`; group attribute `computed` lists them) are allocated
// and left for the sweep to write. `integer_params` (per param, or empty for
// none) marks the params stored as int64.
void create_row_datasets(hid_t file, const std::vector<std::string>& param_names,
                         const std::vector<bool>& integer_params, std::uint64_t n, MetricMask mask,
                         const std::function<void(std::uint64_t first, std::uint64_t count, std::uint64_t* ids,
                                                  double* params)>& fill,
                         const std::string& path);
// Writes the metrics of `mask` of rows [first, first + count) (`metrics`
// row-major [count][n_metrics]) into /metrics/<name>.
void write_metric_rows(hid_t file, std::uint64_t first, std::uint64_t count, const double* metrics, MetricMask mask,
                       const std::string& path);

// Reads every row of `rows` a block at a time and drops them: what a reader
// process does to prove that a file can be read (results_reader.cpp).
void read_every_row(const ResultRows& rows);

// The parameter names of a results file's /params, in declaration order.
std::vector<std::string> read_param_names(hid_t file, const std::string& path);

// Rows of an open results (or checkpoint) file; `owner` (when given) is kept
// alive with them: whatever keeps `file` open.
class FileRows final : public ResultRows {
 public:
  FileRows(hid_t file, std::string path, std::shared_ptr<const void> owner = nullptr);
  std::uint64_t size() const override { return n_; }
  const std::vector<std::string>& param_names() const override { return param_names_; }
  MetricMask metric_mask() const override { return mask_; }
  void read(std::uint64_t first, std::uint64_t count, std::uint64_t* ids, double* params,
            double* metrics) const override;

 private:
  std::shared_ptr<const void> owner_;
  hid_t file_;
  std::string path_;
  std::vector<std::string> param_names_;
  std::uint64_t n_ = 0;
  MetricMask mask_ = 0;  // the /metrics/<name> datasets present
};

// What a finished results file holds beside its rows, written into `file`
// in this order: /topk, /profile, /verify and /validation (when given), the
// root attribute kbt_version, and last complete = 1. /config is written by the caller.
void write_final_groups(hid_t file, const SweepResults& results, const RunProfile& profile,
                        const VerificationResults* verification, const ValidationResults* validation,
                        const std::string& path);

// /validation of `file` (written anew; validation_group.cpp), and read back
// (everything but the period returns; nullopt when absent).
void write_validation_group(hid_t file, const ValidationResults& v, const std::string& path);
std::optional<ValidationResults> read_validation_group(hid_t file, const std::vector<std::string>& param_names,
                                                       const std::string& path);

// /verify of `file` replaced by `verification`.
void write_verify_group(hid_t file, const VerificationResults& v, const std::string& path);

// Bytes write_final_groups will add to a file, at most (for reserving them).
std::uint64_t final_groups_bytes(const SweepResults& results, const RunProfile& profile,
                                 const VerificationResults* verification, const ValidationResults* validation);

}  // namespace kbt::detail
